#include "io/partitioned_read.hpp"

#include <fcntl.h>
#include <openssl/evp.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <map>
#include <stdexcept>

#include "core/error.hpp"
#include "core/text.hpp"
#include "core/wire_bytes.hpp"
#include "io/format.hpp"

namespace synthaudit {

namespace {

// The rows CsvFile::detect_decimal_mark looks at (io/csv.cpp): when the first rank holds at least
// these, its decision is the one a single reader makes.
constexpr std::size_t kDecimalSampleRows = 2000;

// A file descriptor closed on every path out.
class OpenFile {
 public:
  explicit OpenFile(const std::string& path) : path_(path) {
    fd_ = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd_ < 0) throw InputError(path + ": cannot open the file");
  }
  ~OpenFile() {
    if (fd_ >= 0) ::close(fd_);
  }
  OpenFile(const OpenFile&) = delete;
  OpenFile& operator=(const OpenFile&) = delete;
  std::string read(std::uint64_t offset, std::uint64_t size) const {
    std::string out(size, '\0');
    std::uint64_t done = 0;
    while (done < size) {
      const ssize_t got =
          ::pread(fd_, out.data() + done, size - done, static_cast<off_t>(offset + done));
      if (got < 0) throw InputError(path_ + ": read error");
      if (got == 0) throw InputError(path_ + ": the file changed while it was read");
      done += static_cast<std::uint64_t>(got);
    }
    return out;
  }
  // SHA-256 of the whole file, read in pieces (as the single reader's fingerprint).
  std::string sha256(std::uint64_t size) const {
    EVP_MD_CTX* context = EVP_MD_CTX_new();
    EVP_DigestInit_ex(context, EVP_sha256(), nullptr);
    constexpr std::uint64_t kPiece = std::uint64_t{8} << 20;
    for (std::uint64_t at = 0; at < size; at += kPiece) {
      const std::string piece = read(at, std::min(kPiece, size - at));
      EVP_DigestUpdate(context, piece.data(), piece.size());
    }
    unsigned char digest[EVP_MAX_MD_SIZE];
    unsigned int length = 0;
    EVP_DigestFinal_ex(context, digest, &length);
    EVP_MD_CTX_free(context);
    static const char* hex = "0123456789abcdef";
    std::string out;
    for (unsigned int i = 0; i < length; ++i) {
      out += hex[digest[i] >> 4];
      out += hex[digest[i] & 15];
    }
    return out;
  }

 private:
  std::string path_;
  int fd_ = -1;
};

// A row range [first, first + count) of a whole file, renumbered from 0.
class RowRangeFile final : public DataFile {
 public:
  RowRangeFile(std::shared_ptr<const DataFile> whole, std::size_t first, std::size_t count)
      : whole_(std::move(whole)), first_(first), count_(count) {}
  const std::string& path() const override { return whole_->path(); }
  const std::string& sha256() const override { return whole_->sha256(); }
  const std::vector<std::string>& header() const override { return whole_->header(); }
  std::size_t rows() const override { return count_; }
  int threads() const override { return whole_->threads(); }
  std::size_t size() const override { return whole_->size(); }
  std::string format() const override { return whole_->format(); }
  char decimal_mark() const override { return whole_->decimal_mark(); }
  std::string assumed_layout() const override { return whole_->assumed_layout(); }
  const std::vector<ColumnMetadata>& metadata() const override { return whole_->metadata(); }
  void visit_rows(const RowVisitor& visit) const override {
    if (count_ == 0) return;
    whole_->visit_rows([&](int thread, std::size_t row, const std::vector<std::string_view>& f) {
      if (row >= first_ && row < first_ + count_) visit(thread, row - first_, f);
    });
  }

 private:
  std::shared_ptr<const DataFile> whole_;
  std::size_t first_, count_;
};

// The header of a file and no rows (a rank whose share holds no row start).
class HeaderOnlyFile final : public DataFile {
 public:
  HeaderOnlyFile(std::string path, std::string sha256, std::vector<std::string> header,
                 char decimal)
      : path_(std::move(path)),
        sha256_(std::move(sha256)),
        header_(std::move(header)),
        decimal_(decimal) {}
  const std::string& path() const override { return path_; }
  const std::string& sha256() const override { return sha256_; }
  const std::vector<std::string>& header() const override { return header_; }
  std::size_t rows() const override { return 0; }
  int threads() const override { return 1; }
  std::size_t size() const override { return 0; }
  std::string format() const override { return "CSV"; }
  char decimal_mark() const override { return decimal_; }
  void visit_rows(const RowVisitor&) const override {}

 private:
  std::string path_, sha256_;
  std::vector<std::string> header_;
  char decimal_;
};

// "PATH: row N..." with N counted from this rank's first row, as the file's row.
std::string renumber_row(const std::string& message, const std::string& path,
                         std::size_t first_row) {
  const std::string prefix = path + ": row ";
  if (first_row == 0 || message.compare(0, prefix.size(), prefix) != 0) return message;
  std::size_t end = prefix.size();
  while (end < message.size() && message[end] >= '0' && message[end] <= '9') ++end;
  if (end == prefix.size()) return message;
  const std::size_t row = std::stoull(message.substr(prefix.size(), end - prefix.size()));
  return prefix + std::to_string(row + first_row) + message.substr(end);
}

PartitionedFile read_whole_on_every_rank(const std::string& path, const ReadSettings& settings,
                                         Communicator& communicator) {
  std::shared_ptr<const DataFile> whole;
  run_agreed(communicator, [&] { whole = open_data_file(path, settings); });
  const std::size_t total = whole->rows();
  const auto ranks = static_cast<std::size_t>(communicator.size());
  const auto rank = static_cast<std::size_t>(communicator.rank());
  PartitionedFile out;
  out.first_row = total * rank / ranks;
  out.total_rows = total;
  out.sha256 = whole->sha256();
  out.assumed_layout = whole->assumed_layout();
  out.rows = std::make_unique<RowRangeFile>(whole, out.first_row,
                                            total * (rank + 1) / ranks - out.first_row);
  return out;
}

bool is_row_end(const std::string& bytes, std::size_t at) {
  return bytes[at] == '\n' ||
         (bytes[at] == '\r' && (at + 1 >= bytes.size() || bytes[at + 1] != '\n'));
}

}  // namespace

void run_agreed(Communicator& communicator, const std::function<void()>& step,
                const std::function<std::string(const std::string&)>& rewrite) {
  // One process: nothing to agree on, and its errors stay exactly what they are.
  if (communicator.size() == 1) {
    try {
      step();
    } catch (const InputError& e) {
      if (!rewrite) throw;
      throw InputError(rewrite(e.what()));
    }
    return;
  }
  std::string status;
  try {
    step();
  } catch (const InputError& e) {
    status = "i" + (rewrite ? rewrite(e.what()) : std::string(e.what()));
  } catch (const std::exception& e) {
    status = std::string("e") + e.what();
  }
  const auto all = communicator.all_gather(status);
  for (std::size_t rank = 0; rank < all.size(); ++rank) {
    if (all[rank].empty()) continue;
    if (all[rank].front() == 'i') throw InputError(all[rank].substr(1));
    throw std::runtime_error(all[rank].substr(1) + " (rank " + std::to_string(rank) + ")");
  }
}

PartitionedFile open_partitioned(const std::string& path, const ReadSettings& settings,
                                 Communicator& communicator) {
  if (communicator.size() == 1) return read_whole_on_every_rank(path, settings, communicator);
  // Only a regular, uncompressed text file within the size limit is read by byte ranges; the
  // root decides, so that every rank takes the same path.
  std::uint64_t size = 0;
  std::string header_bytes;
  WireWriter decision;
  if (communicator.is_root()) {
    bool by_range = false;
    try {
      struct stat info {};
      if (::stat(path.c_str(), &info) == 0 && S_ISREG(info.st_mode) && info.st_size > 0 &&
          static_cast<std::uint64_t>(info.st_size) <= settings.csv.max_input_bytes) {
        size = static_cast<std::uint64_t>(info.st_size);
        const OpenFile file(path);
        const std::string head = file.read(0, std::min<std::uint64_t>(size, 4096));
        by_range = !is_gzip(head) && detect_data_format(head, path) == DataFormat::kText;
        // The header: up to the first line break outside quotes (after a byte order mark).
        std::size_t at = head.compare(0, 3, "\xEF\xBB\xBF") == 0 ? 3 : 0;
        bool quoted = false;
        std::string text = head;
        std::size_t end = std::string::npos;
        while (by_range && end == std::string::npos) {
          for (; at < text.size(); ++at) {
            // A carriage return needs the byte after it to tell whether it ends the line.
            if (at + 1 == text.size() && text.size() < size) break;
            if (text[at] == '"') quoted = !quoted;
            if (!quoted && is_row_end(text, at)) {
              end = at + 1;
              break;
            }
          }
          if (end != std::string::npos || text.size() == size) break;
          const std::uint64_t more = std::min<std::uint64_t>(size - text.size(), text.size());
          text += file.read(text.size(), more);
        }
        if (end == std::string::npos) {
          by_range = false;
        } else {
          header_bytes = text.substr(0, end);
        }
      }
    } catch (const std::exception&) {
      by_range = false;  // the whole-file reading says what is wrong, as one process would
    }
    decision.put<std::uint8_t>(by_range ? 1 : 0);
    decision.put<std::uint64_t>(size);
    decision.put_string(header_bytes);
  }
  const std::string decided = communicator.broadcast(decision.take());
  WireReader agreed(decided);
  const bool by_range = agreed.get<std::uint8_t>() != 0;
  size = agreed.get<std::uint64_t>();
  header_bytes = agreed.get_string();
  if (!by_range) return read_whole_on_every_rank(path, settings, communicator);

  const auto ranks = static_cast<std::uint64_t>(communicator.size());
  const auto rank = static_cast<std::uint64_t>(communicator.rank());
  const std::uint64_t data_start = header_bytes.size();
  const std::uint64_t data_bytes = size - data_start;
  const std::uint64_t share_start = data_start + data_bytes * rank / ranks;
  const std::uint64_t share_end = data_start + data_bytes * (rank + 1) / ranks;
  // The share with one byte either side: the byte before says whether the share starts a row, the
  // byte after whether a carriage return at its end is a line end of its own.
  std::string share;
  std::string sha256;
  std::uint64_t quotes = 0;
  run_agreed(communicator, [&] {
    const OpenFile file(path);
    const std::uint64_t from = share_start > data_start ? share_start - 1 : share_start;
    const std::uint64_t to = std::min(size, share_end + 1);
    share = file.read(from, to - from);
    const std::size_t skip = share_start - from;
    quotes = static_cast<std::uint64_t>(std::count(
        share.begin() + static_cast<std::ptrdiff_t>(skip),
        share.begin() + static_cast<std::ptrdiff_t>(skip + (share_end - share_start)), '"'));
    if (communicator.is_root()) sha256 = file.sha256(size);
  });
  WireWriter count;
  count.put(quotes);
  const auto counts = communicator.all_gather(count.take());
  std::uint64_t quotes_before = 0;
  for (std::uint64_t r = 0; r < rank; ++r)
    quotes_before += WireReader(counts[r]).get<std::uint64_t>();
  sha256 = communicator.broadcast(sha256);

  // The first row start at or after share_start, or none in this share.
  std::int64_t start = -1;
  if (rank == 0) {
    start = static_cast<std::int64_t>(data_start);
  } else if (share_end > share_start) {
    const std::size_t skip = share_start > data_start ? 1 : 0;
    bool quoted = quotes_before % 2 == 1;
    // A line end just before the share is outside quotes exactly when the share starts outside.
    if (skip == 1 && !quoted && is_row_end(share, 0))
      start = static_cast<std::int64_t>(share_start);
    for (std::size_t at = skip; start < 0 && at < skip + (share_end - share_start); ++at) {
      if (share[at] == '"') quoted = !quoted;
      if (!quoted && is_row_end(share, at))
        start = static_cast<std::int64_t>(share_start + (at - skip) + 1);
    }
  }
  WireWriter mine;
  mine.put(start);
  const auto starts_raw = communicator.all_gather(mine.take());
  std::vector<std::uint64_t> starts(ranks + 1, size);
  for (std::uint64_t r = ranks; r-- > 0;) {
    const auto s = WireReader(starts_raw[r]).get<std::int64_t>();
    starts[r] = s < 0 ? starts[r + 1] : static_cast<std::uint64_t>(s);
  }
  share.clear();
  share.shrink_to_fit();

  // This rank's rows as a file of their own: the header, then its bytes.
  auto build = [&](const CsvOptions& options) -> std::unique_ptr<DataFile> {
    const OpenFile file(path);
    std::string bytes = file.read(starts[rank], starts[rank + 1] - starts[rank]);
    if (bytes.find_first_not_of("\r\n") == std::string::npos) return nullptr;
    return std::make_unique<CsvFile>(
        CsvFile::from_bytes(header_bytes + bytes, path, options, sha256));
  };
  std::unique_ptr<DataFile> rows;
  std::string failure;
  try {
    rows = build(settings.csv);
  } catch (const std::exception& e) {
    failure = e.what();
  }
  WireWriter state;
  state.put<std::uint8_t>(failure.empty() ? 1 : 0);
  state.put<std::uint64_t>(rows ? rows->rows() : 0);
  state.put<char>(rows ? rows->decimal_mark() : 0);
  const auto states = communicator.all_gather(state.take());
  bool clean = true;
  std::vector<std::uint64_t> rows_of(ranks);
  std::vector<char> decimals(ranks);
  for (std::uint64_t r = 0; r < ranks; ++r) {
    WireReader reader(states[r]);
    clean = clean && reader.get<std::uint8_t>() == 1;
    rows_of[r] = reader.get<std::uint64_t>();
    decimals[r] = reader.get<char>();
  }
  // The first rank decides the layout one reader would see; it must hold rows to do so.
  clean = clean && rows_of[0] > 0;
  const char decimal = decimals[0];
  bool same_decimal = true;
  for (std::uint64_t r = 0; r < ranks; ++r)
    same_decimal = same_decimal && (rows_of[r] == 0 || decimals[r] == decimal);
  if (!same_decimal && rows_of[0] < kDecimalSampleRows) clean = false;
  if (!clean) return read_whole_on_every_rank(path, settings, communicator);
  if (!same_decimal) {
    CsvOptions options = settings.csv;
    options.decimal = decimal;
    run_agreed(communicator, [&] {
      if (rows && rows->decimal_mark() != decimal) rows = build(options);
    });
  }
  PartitionedFile out;
  out.read_by_byte_range = true;
  out.sha256 = sha256;
  for (std::uint64_t r = 0; r < ranks; ++r) {
    if (r < rank) out.first_row += rows_of[r];
    out.total_rows += rows_of[r];
  }
  // The first rank's description of the layout is the one reader's; it is sent to every rank.
  out.assumed_layout = communicator.broadcast(rows && rank == 0 ? rows->assumed_layout() : "");
  // The header as the reader splits it (row names left out): from the first rank, which has rows.
  WireWriter header;
  if (rank == 0) header.put_strings(rows->header());
  const std::string header_bytes_agreed = communicator.broadcast(header.take());
  WireReader header_reader(header_bytes_agreed);
  const auto names = header_reader.get_strings();
  if (!rows) rows = std::make_unique<HeaderOnlyFile>(path, sha256, names, decimal);
  out.rows = std::move(rows);
  return out;
}

Schema infer_partitioned_schema(const PartitionedFile& file, const ReadSettings& settings,
                                Communicator& communicator) {
  Schema local;
  run_agreed(communicator, [&] { local = infer_schema(*file.rows, settings); });
  // A column inferred numeric on every rank is numeric: every field of the file is a number.
  std::string numeric(local.columns.size(), '\0');
  for (std::size_t c = 0; c < local.columns.size(); ++c)
    numeric[c] = local.columns[c].kind == ColumnKind::kNumeric ? 1 : 0;
  const auto all = communicator.all_gather(numeric);
  for (std::size_t c = 0; c < local.columns.size(); ++c) {
    auto& entry = local.columns[c];
    if (!entry.inferred) continue;
    bool everywhere = true;
    for (const auto& flags : all) everywhere = everywhere && flags.at(c) == 1;
    entry.kind = everywhere ? ColumnKind::kNumeric : ColumnKind::kCategorical;
    entry.dictionary =
        entry.kind == ColumnKind::kCategorical ? std::make_shared<Dictionary>() : nullptr;
  }
  return local;
}

Table encode_partitioned(const PartitionedFile& file, const Schema& schema,
                         const ReadSettings& settings, const std::string& role,
                         Communicator& communicator, std::vector<std::string>* ignored,
                         std::vector<MissingTally>* tallies) {
  // Encoded against dictionaries of this rank's own, then translated into the shared ones.
  Schema local = schema;
  for (auto& entry : local.columns)
    if (entry.dictionary) entry.dictionary = std::make_shared<Dictionary>();
  Table table;
  std::vector<MissingTally> local_tallies;
  run_agreed(
      communicator,
      [&] { table = encode_table(*file.rows, local, settings, role, ignored, &local_tallies); },
      [&](const std::string& message) {
        return renumber_row(message, file.rows->path(), file.first_row);
      });
  WireWriter levels;
  for (const auto& entry : local.columns)
    if (entry.dictionary) levels.put_strings(entry.dictionary->levels());
  WireWriter tally_bytes;
  tally_bytes.put<std::uint64_t>(local_tallies.size());
  for (const auto& tally : local_tallies) {
    tally_bytes.put_string(tally.column);
    tally_bytes.put<std::uint64_t>(tally.declared_in_file);
    tally_bytes.put<std::uint64_t>(tally.codes.size());
    for (const auto& [code, hits] : tally.codes) {
      tally_bytes.put_string(code);
      tally_bytes.put(hits);
    }
  }
  const auto all_levels = communicator.all_gather(levels.take());
  const auto all_tallies = communicator.all_gather(tally_bytes.take());
  std::vector<WireReader> readers;
  for (const auto& bytes : all_levels) readers.emplace_back(bytes);
  const auto rank = static_cast<std::size_t>(communicator.rank());
  for (std::size_t c = 0; c < schema.columns.size(); ++c) {
    if (!schema.columns[c].dictionary) continue;
    Dictionary& shared = *schema.columns[c].dictionary;
    std::vector<std::uint32_t> translate;
    for (std::size_t r = 0; r < readers.size(); ++r) {
      const auto rank_levels = readers[r].get_strings();
      if (r == rank) translate.reserve(rank_levels.size());
      for (const auto& level : rank_levels) {
        const std::uint32_t code = shared.intern(level);
        if (r == rank) translate.push_back(code);
      }
    }
    Column& column = table.column(c);
    column.dictionary = schema.columns[c].dictionary;
    for (auto& code : column.codes)
      if (code != kMissingCode) code = translate[code];
  }
  std::vector<Column> columns;
  columns.reserve(table.column_count());
  for (std::size_t c = 0; c < table.column_count(); ++c)
    columns.push_back(std::move(table.column(c)));
  table = Table(TableSource{file.rows->path(), file.sha256, role}, std::move(columns));
  if (tallies) {
    // Hits summed over the ranks, in the order of the schema's columns and codes as one reader
    // lists them; what the file itself declares is the whole file's on every rank (counted once).
    std::map<std::pair<std::string, std::string>, std::uint64_t> hits;
    std::map<std::string, std::uint64_t> declared;
    for (std::size_t r = 0; r < all_tallies.size(); ++r) {
      WireReader reader(all_tallies[r]);
      const auto n = reader.get<std::uint64_t>();
      for (std::uint64_t i = 0; i < n; ++i) {
        const std::string column = reader.get_string();
        const auto in_file = reader.get<std::uint64_t>();
        if (r == 0 || !file.read_by_byte_range) declared[column] = in_file;
        const auto codes = reader.get<std::uint64_t>();
        for (std::uint64_t k = 0; k < codes; ++k) {
          const std::string code = reader.get_string();
          hits[{column, code}] += reader.get<std::uint64_t>();
        }
      }
    }
    for (const auto& entry : schema.columns) {
      MissingTally tally;
      tally.column = entry.name;
      std::vector<std::string> codes;
      for (double code : entry.missing_codes) codes.push_back(format_number(code));
      codes.insert(codes.end(), entry.missing_text_codes.begin(), entry.missing_text_codes.end());
      for (const auto& code : codes)
        if (auto it = hits.find({entry.name, code}); it != hits.end() && it->second > 0)
          tally.codes.emplace_back(code, it->second);
      if (auto it = declared.find(entry.name); it != declared.end())
        tally.declared_in_file = it->second;
      if (!tally.codes.empty() || tally.declared_in_file > 0) tallies->push_back(std::move(tally));
    }
  }
  return table;
}

}  // namespace synthaudit
