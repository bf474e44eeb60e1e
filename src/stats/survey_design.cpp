#include "stats/survey_design.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <stdexcept>
#include <string_view>
#include <unordered_map>
#include <unordered_set>

#include "core/error.hpp"
#include "core/text.hpp"

namespace synthaudit::stats {

namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

std::string where_of(const Table& table) {
  return table.source().role +
         (table.source().path.empty() ? std::string() : " (" + table.source().path + ")");
}

std::string label_of(const Column& column, std::size_t row) {
  return column.is_numeric() ? format_number(column.numeric[row])
                             : column.dictionary->level(column.codes[row]);
}

// Dense labels 0..k−1 of a column's values in order of first appearance; InputError for a missing
// value (a design variable must be known for every row, as svydesign requires).
std::vector<std::uint32_t> dense_labels(const Table& table, const Column& column,
                                        const std::string& key, std::size_t& count) {
  std::vector<std::uint32_t> labels(column.size());
  std::unordered_map<double, std::uint32_t> numeric;
  std::unordered_map<std::uint32_t, std::uint32_t> coded;
  for (std::size_t row = 0; row < column.size(); ++row) {
    if (column.missing(row))
      throw InputError(where_of(table) + ": row " + std::to_string(row + 1) + ", column '" +
                       column.name + "' (" + key +
                       "): a design variable may not be missing (svydesign needs every row's "
                       "value)");
    const auto next = static_cast<std::uint32_t>(numeric.size() + coded.size());
    labels[row] = column.is_numeric() ? numeric.try_emplace(column.numeric[row], next).first->second
                                      : coded.try_emplace(column.codes[row], next).first->second;
  }
  count = numeric.size() + coded.size();
  return labels;
}

const Column& design_column(const Table& table, const std::string& name, const std::string& key) {
  const auto index = table.find(name);
  if (!index) throw InputError(where_of(table) + ": no column '" + name + "' (" + key + ")");
  return table.column(*index);
}

}  // namespace

namespace {

// Whether `name` fits `pattern`, whose * stands for any run of characters.
bool fits(std::string_view pattern, std::string_view name) {
  const auto star = pattern.find('*');
  if (star == std::string_view::npos) return pattern == name;
  const auto head = pattern.substr(0, star);
  if (name.substr(0, head.size()) != head) return false;
  const auto rest = pattern.substr(star + 1);
  for (std::size_t from = head.size(); from <= name.size(); ++from)
    if (fits(rest, name.substr(from))) return true;
  return false;
}

}  // namespace

std::vector<std::size_t> replicate_weight_columns(const SurveyDesignSpec& spec,
                                                  const Table& table) {
  std::vector<std::size_t> columns;
  for (const auto& name : spec.replicate_weights) {
    std::size_t matched = 0;
    for (std::size_t c = 0; c < table.column_count(); ++c)
      if (fits(name, table.column(c).name)) {
        columns.push_back(c);
        ++matched;
      }
    if (matched == 0)
      throw InputError(
          where_of(table) + ": no column " +
          (name.find('*') == std::string::npos ? "'" + name + "'" : "matches '" + name + "'") +
          " (design.replicate_weights)");
  }
  return columns;
}

std::vector<std::size_t> design_columns(const SurveyDesignSpec& spec, const Table& table) {
  std::vector<std::size_t> columns;
  const auto add = [&](const std::string& name, const char* key) {
    if (!name.empty()) columns.push_back(*table.find(design_column(table, name, key).name));
  };
  add(spec.strata, "design.strata");
  for (const auto& name : spec.clusters) add(name, "design.clusters");
  add(spec.fpc, "design.fpc");
  const auto replicates = replicate_weight_columns(spec, table);
  columns.insert(columns.end(), replicates.begin(), replicates.end());
  return columns;
}

std::string to_string(LonelyPsu rule) {
  switch (rule) {
    case LonelyPsu::kFail:
      return "fail";
    case LonelyPsu::kRemove:
      return "remove";
    case LonelyPsu::kCertainty:
      return "certainty";
    case LonelyPsu::kAdjust:
      return "adjust";
    case LonelyPsu::kAverage:
      return "average";
  }
  return "fail";
}

std::string to_string(ReplicateType type) {
  switch (type) {
    case ReplicateType::kBrr:
      return "BRR";
    case ReplicateType::kFay:
      return "Fay";
    case ReplicateType::kJk1:
      return "JK1";
    case ReplicateType::kJkn:
      return "JKn";
    case ReplicateType::kBootstrap:
      return "bootstrap";
    case ReplicateType::kOther:
      return "other";
  }
  return "other";
}

std::optional<LonelyPsu> lonely_psu_from(const std::string& name) {
  for (auto rule : {LonelyPsu::kFail, LonelyPsu::kRemove, LonelyPsu::kCertainty, LonelyPsu::kAdjust,
                    LonelyPsu::kAverage})
    if (to_string(rule) == name) return rule;
  return std::nullopt;
}

std::optional<ReplicateType> replicate_type_from(const std::string& name) {
  for (auto type : {ReplicateType::kBrr, ReplicateType::kFay, ReplicateType::kJk1,
                    ReplicateType::kJkn, ReplicateType::kBootstrap, ReplicateType::kOther})
    if (to_string(type) == name) return type;
  return std::nullopt;
}

SurveyDesign SurveyDesign::simple(std::span<const double> weights) {
  SurveyDesign design;
  design.weights_.assign(weights.begin(), weights.end());
  design.psus_ = weights.size();
  design.correction_ = {1.0};
  design.stratum_psus_ = {weights.size()};
  return design;
}

SurveyDesign SurveyDesign::declared(const SurveyDesignSpec& spec, const Table& table,
                                    std::span<const double> weights) {
  if (weights.size() != table.rows())
    throw std::invalid_argument("SurveyDesign: one weight per row expected");
  SurveyDesign design = simple(weights);
  const std::string where = where_of(table);
  if (spec.replicated()) {
    if (!spec.strata.empty() || !spec.clusters.empty() || !spec.fpc.empty())
      throw InputError(
          "design: replicate_weights describe the design on their own; strata, clusters and fpc "
          "cannot be declared with them");
    if (spec.replicate_type == ReplicateType::kFay && !(spec.rho > 0))
      throw InputError("design.type Fay: give Fay's rho (design.rho), as svrepdesign requires");
    if (spec.replicate_type == ReplicateType::kJkn && spec.rscales.empty())
      throw InputError(
          "design.type JKn: give rscales ((n_h - 1)/n_h per replicate), as svrepdesign requires "
          "for combined weights");
    const auto indices = replicate_weight_columns(spec, table);
    if (indices.size() < 2)
      throw InputError("design.replicate_weights: at least two replicate weight columns needed");
    for (const std::size_t index : indices) {
      const Column& column = table.column(index);
      const std::string& name = column.name;
      if (!column.is_numeric())
        throw InputError(where + ": column '" + name +
                         "' (design.replicate_weights) is not numeric");
      for (std::size_t row = 0; row < column.size(); ++row)
        if (!std::isfinite(column.numeric[row]) || column.numeric[row] < 0)
          throw InputError(
              where + ": row " + std::to_string(row + 1) + ", column '" + name +
              "' (design.replicate_weights): a replicate weight must be a finite "
              "number >= 0, not " +
              (column.missing(row) ? std::string("missing") : format_number(column.numeric[row])));
      design.replicates_.push_back(column.numeric);
    }
    const auto count = static_cast<double>(indices.size());
    switch (spec.replicate_type) {
      case ReplicateType::kBrr:
        design.scale_ = 1.0 / count;
        break;
      case ReplicateType::kFay:
        design.scale_ = 1.0 / (count * (1.0 - spec.rho) * (1.0 - spec.rho));
        break;
      case ReplicateType::kJk1:
        design.scale_ = (count - 1.0) / count;
        break;
      case ReplicateType::kJkn:
        design.scale_ = 1.0;
        break;
      case ReplicateType::kBootstrap:
        design.scale_ = 1.0 / (count - 1.0);
        break;
      case ReplicateType::kOther:
        design.scale_ = 1.0;
        break;
    }
    if (spec.scale) design.scale_ = *spec.scale;
    design.rscales_ =
        spec.rscales.empty() ? std::vector<double>(indices.size(), 1.0) : spec.rscales;
    if (design.rscales_.size() != indices.size())
      throw InputError("design.rscales: " + std::to_string(spec.rscales.size()) + " values for " +
                       std::to_string(indices.size()) + " replicate weight columns");
    design.mse_ = spec.mse;
    return design;
  }

  // Strata.
  if (!spec.strata.empty()) {
    const Column& column = design_column(table, spec.strata, "design.strata");
    design.stratum_ = dense_labels(table, column, "design.strata", design.strata_);
  }
  auto stratum_of = [&](std::size_t row) -> std::uint32_t {
    return design.stratum_.empty() ? 0 : design.stratum_[row];
  };
  // First-stage clusters.
  if (spec.clusters.size() > 1 && !spec.fpc.empty())
    throw InputError(
        "design.clusters: with fpc, only one stage of clusters is supported (the later stages' "
        "finite-population variance terms are not computed); declare the first-stage clusters");
  if (!spec.clusters.empty()) {
    const Column& column = design_column(table, spec.clusters.front(), "design.clusters");
    std::size_t labels = 0;
    const auto label = dense_labels(table, column, "design.clusters", labels);
    if (spec.nest) {
      std::map<std::pair<std::uint32_t, std::uint32_t>, std::uint32_t> index;
      design.psu_.resize(table.rows());
      for (std::size_t row = 0; row < table.rows(); ++row)
        design.psu_[row] = index
                               .try_emplace({stratum_of(row), label[row]},
                                            static_cast<std::uint32_t>(index.size()))
                               .first->second;
      design.psus_ = index.size();
    } else {
      std::vector<std::int64_t> home(labels, -1);
      for (std::size_t row = 0; row < table.rows(); ++row) {
        auto& h = home[label[row]];
        if (h < 0) h = stratum_of(row);
        if (h != stratum_of(row))
          throw InputError(where + ": row " + std::to_string(row + 1) + ": cluster '" +
                           label_of(column, row) + "' of column '" + column.name +
                           "' appears in more than one stratum (clusters not nested in strata; "
                           "set design.nest: true when cluster labels restart in each stratum, as "
                           "svydesign's nest = TRUE)");
      }
      design.psu_ = label;
      design.psus_ = labels;
    }
  }
  design.stratum_psus_.assign(design.strata_, 0);
  if (design.psu_.empty()) {
    for (std::size_t row = 0; row < table.rows(); ++row) ++design.stratum_psus_[stratum_of(row)];
  } else {
    std::vector<char> seen(design.psus_, 0);
    for (std::size_t row = 0; row < table.rows(); ++row)
      if (!seen[design.psu_[row]]) {
        seen[design.psu_[row]] = 1;
        ++design.stratum_psus_[stratum_of(row)];
      }
  }
  // Finite-population correction: survey's f_h = (N_h − n_h)/N_h, N_h the population's PSUs in
  // the stratum, given as a count or (every value ≤ 1) as the sampling fraction n_h/N_h.
  design.correction_.assign(design.strata_, 1.0);
  if (!spec.fpc.empty()) {
    const Column& column = design_column(table, spec.fpc, "design.fpc");
    if (!column.is_numeric())
      throw InputError(where + ": column '" + spec.fpc + "' (design.fpc) is not numeric");
    bool fractions = true;
    for (std::size_t row = 0; row < column.size(); ++row) {
      const double value = column.numeric[row];
      if (column.missing(row) || !(value > 0))
        throw InputError(where + ": row " + std::to_string(row + 1) + ", column '" + spec.fpc +
                         "' (design.fpc): must be a positive number (population size or "
                         "sampling fraction)");
      fractions = fractions && value <= 1.0;
    }
    std::vector<double> value_of(design.strata_, kNaN);
    for (std::size_t row = 0; row < column.size(); ++row) {
      double& v = value_of[stratum_of(row)];
      if (std::isnan(v)) v = column.numeric[row];
      if (v != column.numeric[row])
        throw InputError(where + ": row " + std::to_string(row + 1) + ", column '" + spec.fpc +
                         "' (design.fpc): not constant within its stratum (" + format_number(v) +
                         " and " + format_number(column.numeric[row]) + ")");
    }
    for (std::size_t h = 0; h < design.strata_; ++h) {
      const auto sampled = static_cast<double>(design.stratum_psus_[h]);
      const double population = fractions ? sampled / value_of[h] : value_of[h];
      if (population < sampled - 1e-9)
        throw InputError(where + ": column '" + spec.fpc + "' (design.fpc): a stratum has " +
                         format_number(sampled) + " sampled units but a population of " +
                         format_number(population));
      design.correction_[h] = std::isinf(population) ? 1.0 : (population - sampled) / population;
    }
  }
  design.lonely_ = spec.lonely_psu;
  if (design.lonely_ == LonelyPsu::kFail)
    for (std::size_t row = 0; row < table.rows(); ++row)
      if (design.stratum_psus_[stratum_of(row)] == 1) {
        const std::string stratum =
            spec.strata.empty() ? std::string("the only stratum")
                                : "stratum '" + label_of(table.column(spec.strata), row) + "'";
        throw InputError(where + ": " + stratum +
                         " has only one PSU, so its variance cannot be estimated; choose "
                         "design.lonely_psu: remove, certainty, adjust or average (R's "
                         "options(survey.lonely.psu =))");
      }
  return design;
}

namespace {

// Σ_h f_h n_h/(n_h − 1) spread_h over the strata, spread_h the centred cross-products of the
// stratum's PSU totals; strata with one PSU as survey's lonely.psu option says (remove,
// certainty: the stratum's centred spread, zero; adjust: its uncentred total's; average: left
// out and the others scaled up by strata/strata counted).
Eigen::MatrixXd combine_strata(const std::vector<Eigen::MatrixXd>& spread,
                               const std::vector<std::size_t>& stratum_psus,
                               const std::vector<double>& correction, LonelyPsu lonely) {
  const Eigen::Index k = spread.empty() ? 0 : spread.front().rows();
  Eigen::MatrixXd variance = Eigen::MatrixXd::Zero(k, k);
  std::size_t counted = 0, with_psus = 0;
  for (std::size_t h = 0; h < spread.size(); ++h) {
    const auto n = static_cast<double>(stratum_psus[h]);
    if (stratum_psus[h] == 0) continue;
    ++with_psus;
    if (stratum_psus[h] > 1) {
      variance += correction[h] * n / (n - 1.0) * spread[h];
      ++counted;
    } else if (lonely == LonelyPsu::kAverage) {
      continue;
    } else if (lonely == LonelyPsu::kFail) {
      throw std::logic_error("linearised_variance: lonely PSU under fail (checked when built)");
    } else {
      variance += correction[h] * spread[h];
      ++counted;
    }
  }
  if (lonely == LonelyPsu::kAverage && counted > 0 && counted < with_psus)
    variance *= static_cast<double>(with_psus) / static_cast<double>(counted);
  return variance;
}

}  // namespace

double SurveyDesign::linearised_variance(std::span<const double> z) const {
  if (z.size() != rows()) throw std::invalid_argument("linearised_variance: one value per row");
  if (!psu_.empty()) {
    const Eigen::Map<const Eigen::MatrixXd> u(z.data(), static_cast<Eigen::Index>(z.size()), 1);
    return linearised_variance(Eigen::MatrixXd(u))(0, 0);
  }
  // Every row its own PSU: the same sums in scalars, two passes and no copy (means and totals of
  // every column come here).
  std::vector<double> centre(strata_, 0.0);
  for (std::size_t row = 0; row < z.size(); ++row)
    centre[stratum_.empty() ? 0 : stratum_[row]] += z[row];
  for (std::size_t h = 0; h < strata_; ++h)
    if (stratum_psus_[h] > 0) centre[h] /= static_cast<double>(stratum_psus_[h]);
  const bool adjust = lonely_ == LonelyPsu::kAdjust;
  std::vector<double> sum(strata_, 0.0);
  for (std::size_t row = 0; row < z.size(); ++row) {
    const std::size_t h = stratum_.empty() ? 0 : stratum_[row];
    const double d = (adjust && stratum_psus_[h] == 1) ? z[row] : z[row] - centre[h];
    sum[h] += d * d;
  }
  std::vector<Eigen::MatrixXd> spread;
  for (const double v : sum) spread.push_back(Eigen::MatrixXd::Constant(1, 1, v));
  return combine_strata(spread, stratum_psus_, correction_, lonely_)(0, 0);
}

Eigen::MatrixXd SurveyDesign::linearised_variance(const Eigen::MatrixXd& u,
                                                  std::span<const std::size_t> rows) const {
  const Eigen::Index k = u.cols();
  const auto design_row = [&](Eigen::Index i) {
    return rows.empty() ? static_cast<std::size_t>(i) : rows[static_cast<std::size_t>(i)];
  };
  if (!rows.empty() && rows.size() != static_cast<std::size_t>(u.rows()))
    throw std::invalid_argument("linearised_variance: one design row per row of u");
  const auto stratum_of = [&](std::size_t row) -> std::size_t {
    return stratum_.empty() ? 0 : stratum_[row];
  };
  // The PSU totals that are not zero, each with its stratum. Without clusters every row is a PSU
  // and the totals are u's rows themselves; PSUs of the design with no row in u have total zero.
  Eigen::MatrixXd totals;
  std::vector<std::size_t> total_stratum;
  const Eigen::MatrixXd* present = &u;
  if (psu_.empty()) {
    total_stratum.resize(static_cast<std::size_t>(u.rows()));
    for (Eigen::Index i = 0; i < u.rows(); ++i)
      total_stratum[static_cast<std::size_t>(i)] = stratum_of(design_row(i));
  } else {
    totals = Eigen::MatrixXd::Zero(static_cast<Eigen::Index>(psus_), k);
    total_stratum.assign(psus_, 0);
    for (Eigen::Index i = 0; i < u.rows(); ++i) totals.row(psu_[design_row(i)]) += u.row(i);
    for (std::size_t row = 0; row < weights_.size(); ++row)
      total_stratum[psu_[row]] = stratum_of(row);
    present = &totals;
  }
  // Per stratum: the sum of the totals, how many are present, and their cross-products.
  std::vector<Eigen::RowVectorXd> sum(strata_, Eigen::RowVectorXd::Zero(k));
  std::vector<std::size_t> count(strata_, 0);
  for (Eigen::Index i = 0; i < present->rows(); ++i) {
    sum[total_stratum[static_cast<std::size_t>(i)]] += present->row(i);
    ++count[total_stratum[static_cast<std::size_t>(i)]];
  }
  std::vector<Eigen::MatrixXd> spread(strata_, Eigen::MatrixXd::Zero(k, k));
  std::vector<Eigen::RowVectorXd> centre(strata_);
  for (std::size_t h = 0; h < strata_; ++h)
    centre[h] = stratum_psus_[h] > 0
                    ? Eigen::RowVectorXd(sum[h] / static_cast<double>(stratum_psus_[h]))
                    : Eigen::RowVectorXd::Zero(k);
  const bool adjust = lonely_ == LonelyPsu::kAdjust;
  // Each total centred on its stratum's mean (a lonely PSU under "adjust" is not: survey's
  // onestrat), then Σ c c' per stratum: one product when there is one stratum, in place rank-one
  // updates otherwise (no temporary per row: this runs over every row of the data).
  Eigen::MatrixXd centred = *present;
  for (Eigen::Index i = 0; i < centred.rows(); ++i) {
    const std::size_t h = total_stratum[static_cast<std::size_t>(i)];
    if (!(adjust && stratum_psus_[h] == 1)) centred.row(i) -= centre[h];
  }
  if (strata_ == 1) {
    spread[0].noalias() = centred.transpose() * centred;
  } else {
    for (Eigen::Index i = 0; i < centred.rows(); ++i)
      spread[total_stratum[static_cast<std::size_t>(i)]].noalias() +=
          centred.row(i).transpose() * centred.row(i);
  }
  // The design's PSUs that have no row in u: totals of zero, each centred too.
  for (std::size_t h = 0; h < strata_; ++h)
    if (stratum_psus_[h] > 0 && !(adjust && stratum_psus_[h] == 1))
      spread[h] += (static_cast<double>(stratum_psus_[h]) - static_cast<double>(count[h])) *
                   centre[h].transpose() * centre[h];
  return combine_strata(spread, stratum_psus_, correction_, lonely_);
}

Eigen::MatrixXd SurveyDesign::replicate_variance(const Eigen::MatrixXd& replicates,
                                                 const Eigen::VectorXd& full) const {
  const Eigen::Index k = full.size();
  // svrVar drops replicates whose estimate is NA (na.action).
  std::vector<Eigen::Index> kept;
  for (Eigen::Index r = 0; r < replicates.rows(); ++r)
    if (replicates.row(r).allFinite()) kept.push_back(r);
  Eigen::MatrixXd variance = Eigen::MatrixXd::Zero(k, k);
  if (kept.empty()) return Eigen::MatrixXd::Constant(k, k, kNaN);
  Eigen::RowVectorXd centre = full.transpose();
  if (!mse_) {
    centre.setZero();
    double used = 0;
    for (const auto r : kept)
      if (rscales_[static_cast<std::size_t>(r)] > 0) {
        centre += replicates.row(r);
        used += 1;
      }
    centre /= used;
  }
  for (const auto r : kept) {
    const Eigen::RowVectorXd d = replicates.row(r) - centre;
    variance += rscales_[static_cast<std::size_t>(r)] * d.transpose() * d;
  }
  return scale_ * variance;
}

double SurveyDesign::replicate_variance(std::span<const double> replicates, double full) const {
  Eigen::MatrixXd matrix(static_cast<Eigen::Index>(replicates.size()), 1);
  for (std::size_t r = 0; r < replicates.size(); ++r)
    matrix(static_cast<Eigen::Index>(r), 0) = replicates[r];
  return replicate_variance(matrix, Eigen::VectorXd::Constant(1, full))(0, 0);
}

double SurveyDesign::degrees_of_freedom(const std::function<bool(std::size_t)>& present) const {
  if (replicated()) {
    // survey's degf for replicate designs: the rank of the replicate weights (qr(tol = 1e-5)),
    // less one.
    if (!replicate_df_) {
      Eigen::MatrixXd matrix(static_cast<Eigen::Index>(rows()),
                             static_cast<Eigen::Index>(replicates_.size()));
      for (std::size_t r = 0; r < replicates_.size(); ++r)
        for (std::size_t i = 0; i < rows(); ++i)
          matrix(static_cast<Eigen::Index>(i), static_cast<Eigen::Index>(r)) = replicates_[r][i];
      Eigen::ColPivHouseholderQR<Eigen::MatrixXd> qr(matrix);
      qr.setThreshold(1e-5);
      replicate_df_ = static_cast<double>(qr.rank()) - 1.0;
    }
    return *replicate_df_;
  }
  std::unordered_set<std::uint32_t> psus, strata;
  std::size_t rows_in = 0;
  for (std::size_t row = 0; row < weights_.size(); ++row) {
    if (!(weights_[row] > 0) || (present && !present(row))) continue;
    ++rows_in;
    if (!psu_.empty()) psus.insert(psu_[row]);
    strata.insert(stratum_.empty() ? 0 : stratum_[row]);
  }
  const std::size_t units = psu_.empty() ? rows_in : psus.size();
  return static_cast<double>(units) - static_cast<double>(strata.size());
}

std::string SurveyDesign::describe() const {
  if (replicated())
    return std::to_string(replicates_.size()) + " replicate weights (scale " +
           format_number(scale_) + (mse_ ? ", centred on the full-sample estimate)" : ")");
  std::string text = psu_.empty() ? std::string("rows drawn individually")
                                  : std::to_string(psus_) + " clusters (PSUs)";
  if (strata_ > 1) text += " in " + std::to_string(strata_) + " strata";
  const bool corrected =
      std::any_of(correction_.begin(), correction_.end(), [](double f) { return f < 1.0; });
  text += corrected ? ", without replacement (finite-population correction)" : ", with replacement";
  return text;
}

}  // namespace synthaudit::stats
