#include "stats/formula.hpp"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cmath>
#include <set>

#include "core/error.hpp"
#include "core/text.hpp"

namespace synthaudit::stats {

namespace {

const std::vector<std::string> kFunctions = {"I",     "factor", "relevel", "log", "log2", "log10",
                                             "log1p", "exp",    "sqrt",    "abs", "poly", "scale"};
// Functions that make a variable of their own: not allowed inside other arithmetic.
const std::vector<std::string> kWholeVariableFunctions = {"factor", "relevel", "poly", "scale"};

// The comparison operators as Expr::op stores them (one character each).
char comparison_code(const std::string& op) {
  if (op == ">=") return '}';
  if (op == "<=") return '{';
  if (op == "==") return '=';
  if (op == "!=") return '!';
  return op[0];  // > <
}
bool is_comparison(char op) {
  return op == '>' || op == '<' || op == '}' || op == '{' || op == '=' || op == '!';
}
std::string comparison_text(char op) {
  switch (op) {
    case '}':
      return ">=";
    case '{':
      return "<=";
    case '=':
      return "==";
    case '!':
      return "!=";
  }
  return std::string(1, op);
}

struct Token {
  enum class Kind { kName, kNumber, kOp, kString, kEnd };
  Kind kind;
  std::string text;
  std::size_t position;
};

// The formula as messages quote it: at most 80 characters, control characters escaped.
std::string quoted(std::string_view text) {
  return escape_controls(text.size() > 80 ? std::string(text.substr(0, 77)) + "..."
                                          : std::string(text));
}

class Parser {
 public:
  Parser(std::string_view text, const ResourceLimits& limits)
      : text_(text), max_depth_(limits.formula_depth), max_terms_(limits.formula_terms) {
    tokenize();
  }

  Formula parse() {
    Formula f;
    f.text = std::string(text_);
    if (!is_op("~")) {
      f.has_response = true;
      f.response = parse_arith();
    }
    expect("~");
    TermSet rhs = parse_sum(f);
    if (tokens_[pos_].kind != Token::Kind::kEnd) fail("unexpected '" + tokens_[pos_].text + "'");
    f.intercept = rhs.intercept;
    // R orders terms by their interaction order, keeping the order of appearance within one.
    std::stable_sort(rhs.terms.begin(), rhs.terms.end(),
                     [](const auto& a, const auto& b) { return a.size() < b.size(); });
    for (auto& t : rhs.terms) f.terms.push_back({t});
    if (f.terms.empty() && !f.intercept) fail("the model has no terms and no intercept");
    return f;
  }

 private:
  using Term = std::vector<std::size_t>;  // sorted variable indices
  struct TermSet {
    std::vector<Term> terms;
    bool intercept = true;
    bool explicit_intercept = false;  // the operand was the number 1 or 0
  };

  [[noreturn]] void fail(const std::string& what) const {
    const std::size_t at = pos_ < tokens_.size() ? tokens_[pos_].position : text_.size();
    throw InputError("formula '" + quoted(text_) + "': " + what + " at character " +
                     std::to_string(at + 1));
  }

  // Counts the nesting of the recursive descent (parentheses, calls, signs): a deep formula is
  // an error instead of a stack overflow.
  struct DepthGuard {
    Parser& parser;
    explicit DepthGuard(Parser& p) : parser(p) {
      if (++parser.depth_ > parser.max_depth_)
        parser.fail("nested deeper than " + std::to_string(parser.max_depth_) +
                    " levels (limit formula_depth; raise it with --limit formula_depth=N)");
    }
    ~DepthGuard() { --parser.depth_; }
    DepthGuard(const DepthGuard&) = delete;
    DepthGuard& operator=(const DepthGuard&) = delete;
  };
  void check_terms(std::uint64_t terms) const {
    if (terms > max_terms_)
      fail("the model would have more than " + std::to_string(max_terms_) +
           " terms (limit formula_terms; raise it with --limit formula_terms=N)");
  }

  void tokenize() {
    std::size_t i = 0;
    while (i < text_.size()) {
      const char c = text_[i];
      if (std::isspace(static_cast<unsigned char>(c))) {
        ++i;
      } else if (std::isalpha(static_cast<unsigned char>(c)) || c == '.' || c == '_') {
        std::size_t j = i;
        while (j < text_.size() && (std::isalnum(static_cast<unsigned char>(text_[j])) ||
                                    text_[j] == '.' || text_[j] == '_'))
          ++j;
        // A leading '.' followed by a digit is a number (".5").
        if (c == '.' && j > i + 1 && std::isdigit(static_cast<unsigned char>(text_[i + 1]))) {
          j = number_end(i);
          tokens_.push_back({Token::Kind::kNumber, std::string(text_.substr(i, j - i)), i});
        } else {
          tokens_.push_back({Token::Kind::kName, std::string(text_.substr(i, j - i)), i});
        }
        i = j;
      } else if (c == '`') {
        const std::size_t end = text_.find('`', i + 1);
        if (end == std::string_view::npos) {
          pos_ = tokens_.size();
          tokens_.push_back({Token::Kind::kEnd, "", i});
          fail("unclosed backquote");
        }
        if (end == i + 1) {  // R: "attempt to use zero-length variable name"
          pos_ = tokens_.size();
          tokens_.push_back({Token::Kind::kEnd, "", i});
          fail("empty name in backquotes");
        }
        tokens_.push_back({Token::Kind::kName, std::string(text_.substr(i + 1, end - i - 1)), i});
        i = end + 1;
      } else if (std::isdigit(static_cast<unsigned char>(c))) {
        const std::size_t j = number_end(i);
        tokens_.push_back({Token::Kind::kNumber, std::string(text_.substr(i, j - i)), i});
        i = j;
      } else if (c == '"' || c == '\'') {
        const std::size_t end = text_.find(c, i + 1);
        if (end == std::string_view::npos) {
          pos_ = tokens_.size();
          tokens_.push_back({Token::Kind::kEnd, "", i});
          fail("unclosed quote");
        }
        tokens_.push_back({Token::Kind::kString, std::string(text_.substr(i + 1, end - i - 1)), i});
        i = end + 1;
      } else if ((c == '>' || c == '<' || c == '=' || c == '!') && i + 1 < text_.size() &&
                 text_[i + 1] == '=') {
        tokens_.push_back({Token::Kind::kOp, std::string(text_.substr(i, 2)), i});
        i += 2;
      } else if (std::string_view("~+-*/^:(),<>=").find(c) != std::string_view::npos) {
        tokens_.push_back({Token::Kind::kOp, std::string(1, c), i});
        ++i;
      } else {
        tokens_.push_back({Token::Kind::kEnd, "", i});
        pos_ = tokens_.size() - 1;
        fail(std::string("unexpected character '") + c + "'");
      }
    }
    tokens_.push_back({Token::Kind::kEnd, "", text_.size()});
  }

  std::size_t number_end(std::size_t i) const {
    std::size_t j = i;
    while (j < text_.size() &&
           (std::isdigit(static_cast<unsigned char>(text_[j])) || text_[j] == '.'))
      ++j;
    if (j < text_.size() && (text_[j] == 'e' || text_[j] == 'E')) {
      std::size_t k = j + 1;
      if (k < text_.size() && (text_[k] == '+' || text_[k] == '-')) ++k;
      if (k < text_.size() && std::isdigit(static_cast<unsigned char>(text_[k]))) {
        j = k;
        while (j < text_.size() && std::isdigit(static_cast<unsigned char>(text_[j]))) ++j;
      }
    }
    return j;
  }

  bool is_op(const char* op) const {
    return tokens_[pos_].kind == Token::Kind::kOp && tokens_[pos_].text == op;
  }
  void expect(const char* op) {
    if (!is_op(op)) {
      if (tokens_[pos_].kind == Token::Kind::kEnd) fail(std::string("expected '") + op + "'");
      fail(std::string("expected '") + op + "' but found '" + tokens_[pos_].text + "'");
    }
    ++pos_;
  }

  // ---- arithmetic (response, and arguments of functions) ----
  // A comparison binds more loosely than + and -, and does not chain (as R's parser).
  Expr parse_arith() {
    Expr left = parse_additive();
    if (is_op(">") || is_op("<") || is_op(">=") || is_op("<=") || is_op("==") || is_op("!=")) {
      const char op = comparison_code(tokens_[pos_++].text);
      left = binary(op, std::move(left), parse_additive());
      if (is_op(">") || is_op("<") || is_op(">=") || is_op("<=") || is_op("==") || is_op("!="))
        fail("comparisons do not chain; write (a > b) * (b > c)");
    }
    return left;
  }
  Expr parse_additive() {
    Expr left = parse_product();
    while (is_op("+") || is_op("-")) {
      const char op = tokens_[pos_++].text[0];
      left = binary(op, std::move(left), parse_product());
    }
    return left;
  }
  Expr parse_product() {
    Expr left = parse_unary();
    while (is_op("*") || is_op("/")) {
      const char op = tokens_[pos_++].text[0];
      left = binary(op, std::move(left), parse_unary());
    }
    return left;
  }
  Expr parse_unary() {
    const DepthGuard guard(*this);
    if (is_op("-")) {
      ++pos_;
      Expr e;
      e.kind = Expr::Kind::kNegate;
      e.args.push_back(parse_unary());
      return e;
    }
    if (is_op("+")) {
      ++pos_;
      return parse_unary();
    }
    return parse_power();
  }
  Expr parse_power() {
    Expr base = parse_primary();
    if (is_op("^")) {
      ++pos_;
      return binary('^', std::move(base), parse_unary());  // right-associative
    }
    return base;
  }
  Expr parse_primary() {
    const Token& t = tokens_[pos_];
    if (t.kind == Token::Kind::kNumber) {
      ++pos_;
      Expr e;
      e.kind = Expr::Kind::kNumber;
      e.number_text = t.text;
      const auto [ptr, ec] =
          std::from_chars(t.text.data(), t.text.data() + t.text.size(), e.number);
      if (ec != std::errc() || ptr != t.text.data() + t.text.size())
        fail("bad number '" + t.text + "'");
      return e;
    }
    if (t.kind == Token::Kind::kName) return parse_name();
    if (is_op("(")) {
      ++pos_;
      Expr e;
      e.kind = Expr::Kind::kParen;
      e.args.push_back(parse_arith());
      expect(")");
      return e;
    }
    if (t.kind == Token::Kind::kEnd) fail("expression ends too early");
    if (t.kind == Token::Kind::kString) fail("a quoted string is only an argument of relevel()");
    fail("unexpected '" + t.text + "'");
  }
  Expr parse_name() {
    const Token t = tokens_[pos_++];
    if (!is_op("(")) {
      Expr e;
      e.kind = Expr::Kind::kColumn;
      e.name = t.text;
      return e;
    }
    if (std::find(kFunctions.begin(), kFunctions.end(), t.text) == kFunctions.end()) {
      --pos_;
      fail("unsupported function '" + t.text + "()'; supported: " + join(kFunctions, ", "));
    }
    const bool whole_variable =
        std::find(kWholeVariableFunctions.begin(), kWholeVariableFunctions.end(), t.text) !=
        kWholeVariableFunctions.end();
    if (whole_variable && call_depth_ > 0 && !(t.text == "factor" && in_relevel_)) {
      --pos_;
      fail(t.text + "() must be a variable of its own, not inside another expression");
    }
    const std::size_t open = pos_;
    ++pos_;
    Expr e;
    e.kind = Expr::Kind::kCall;
    e.name = t.text;
    ++call_depth_;
    const bool was_in_relevel = in_relevel_;
    in_relevel_ = t.text == "relevel";
    parse_argument(e);
    while (is_op(",")) {
      ++pos_;
      parse_argument(e);
    }
    in_relevel_ = was_in_relevel;
    --call_depth_;
    expect(")");
    const std::size_t max_args = t.text == "log" || t.text == "relevel" || t.text == "poly" ? 2 : 1;
    const std::size_t min_args = t.text == "relevel" || t.text == "poly" ? 2 : 1;
    auto fail_at_call = [&](const std::string& what) {
      pos_ = open - 1;
      fail(what);
    };
    if (e.args.size() > max_args || e.args.size() < min_args)
      fail_at_call(t.text + "() takes " +
                   (min_args == max_args
                        ? std::to_string(max_args)
                        : std::to_string(min_args) + " or " + std::to_string(max_args)) +
                   " argument(s)");
    for (std::size_t k = 0; k < e.args.size(); ++k) {
      const std::string& arg_name = e.arg_names[k];
      const bool allowed = arg_name.empty() ||
                           (t.text == "relevel" && k == 1 && arg_name == "ref") ||
                           (t.text == "poly" && k == 1 && arg_name == "degree") ||
                           (t.text == "log" && k == 1 && arg_name == "base");
      if (!allowed) fail_at_call(t.text + "(): unsupported argument '" + arg_name + "'");
      if (e.args[k].kind == Expr::Kind::kString && !(t.text == "relevel" && k == 1))
        fail_at_call(t.text + "(): a quoted string is not a valid argument here");
    }
    if (t.text == "factor" && e.args[0].kind != Expr::Kind::kColumn)
      fail_at_call("factor() takes a column name");
    if (t.text == "relevel") {
      const Expr& f = e.args[0];
      if (!(f.kind == Expr::Kind::kColumn || (f.kind == Expr::Kind::kCall && f.name == "factor")))
        fail_at_call("relevel() takes a column name or factor(column)");
      if (e.args[1].kind != Expr::Kind::kString)
        fail_at_call(
            "relevel(): ref must be a quoted level, e.g. relevel(region, ref = \"north\")");
    }
    if (t.text == "poly") {
      const Expr& d = e.args[1];
      if (d.kind != Expr::Kind::kNumber || d.number < 1 || d.number > 20 ||
          d.number != std::floor(d.number))
        fail_at_call("poly(): the degree must be a whole number from 1 to 20");
    }
    return e;
  }
  void parse_argument(Expr& call) {
    std::string arg_name;
    if (tokens_[pos_].kind == Token::Kind::kName && tokens_[pos_ + 1].kind == Token::Kind::kOp &&
        tokens_[pos_ + 1].text == "=") {
      arg_name = tokens_[pos_].text;
      pos_ += 2;
    }
    call.arg_names.push_back(arg_name);
    if (tokens_[pos_].kind == Token::Kind::kString) {
      Expr s;
      s.kind = Expr::Kind::kString;
      s.text = tokens_[pos_++].text;
      call.args.push_back(std::move(s));
      return;
    }
    call.args.push_back(parse_arith());
  }
  static Expr binary(char op, Expr a, Expr b) {
    Expr e;
    e.kind = Expr::Kind::kBinary;
    e.op = op;
    e.args.push_back(std::move(a));
    e.args.push_back(std::move(b));
    return e;
  }

  // ---- formula right-hand side ----
  TermSet parse_sum(Formula& f) {
    TermSet result;
    bool first = true;
    bool subtract = false;
    if (is_op("-")) {  // "~ -1 + x"
      ++pos_;
      subtract = true;
    }
    for (;;) {
      TermSet operand = parse_star(f);
      if (operand.explicit_intercept) {
        // "+ 1" / "- 0" keep the intercept; "+ 0" / "- 1" remove it.
        result.intercept = subtract ? !operand.intercept : operand.intercept;
      } else if (subtract) {
        for (const auto& t : operand.terms)
          result.terms.erase(std::remove(result.terms.begin(), result.terms.end(), t),
                             result.terms.end());
      } else {
        check_terms(result.terms.size() + operand.terms.size());
        for (const auto& t : operand.terms) add_term(result.terms, t);
      }
      first = false;
      if (is_op("+")) {
        subtract = false;
      } else if (is_op("-")) {
        subtract = true;
      } else {
        break;
      }
      ++pos_;
    }
    (void)first;
    return result;
  }
  TermSet parse_star(Formula& f) {
    TermSet left = parse_colon(f);
    while (is_op("*")) {
      ++pos_;
      TermSet right = parse_colon(f);
      check_no_number(left, "*");
      check_no_number(right, "*");
      check_terms(static_cast<std::uint64_t>(left.terms.size() + 1) * (right.terms.size() + 1));
      TermSet out;
      for (const auto& t : left.terms) add_term(out.terms, t);
      for (const auto& t : right.terms) add_term(out.terms, t);
      for (const auto& t : interact(left, right).terms) add_term(out.terms, t);
      left = std::move(out);
    }
    return left;
  }
  TermSet parse_colon(Formula& f) {
    TermSet left = parse_atom(f);
    while (is_op(":")) {
      ++pos_;
      TermSet right = parse_atom(f);
      check_no_number(left, ":");
      check_no_number(right, ":");
      check_terms(static_cast<std::uint64_t>(left.terms.size()) * right.terms.size());
      left = interact(left, right);
    }
    return left;
  }
  TermSet parse_atom(Formula& f) {
    const DepthGuard guard(*this);
    if (is_op("(")) {
      ++pos_;
      TermSet inner = parse_sum(f);
      expect(")");
      return inner;
    }
    const Token& t = tokens_[pos_];
    if (t.kind == Token::Kind::kNumber) {
      ++pos_;
      if (t.text != "0" && t.text != "1")
        fail("a number in a formula must be 0 or 1 (use I() for arithmetic)");
      TermSet s;
      s.explicit_intercept = true;
      s.intercept = t.text == "1";
      return s;
    }
    if (t.kind != Token::Kind::kName) {
      if (t.kind == Token::Kind::kEnd) fail("formula ends too early");
      if (t.text == "^") fail("'^' between terms is not supported (use I(x^2) for a power)");
      fail("unexpected '" + t.text + "'");
    }
    if (t.text == "." &&
        !(tokens_[pos_ + 1].kind == Token::Kind::kOp && tokens_[pos_ + 1].text == "("))
      fail("'.' (all other columns) is not supported; name the columns");
    Expr e = parse_name();
    if (is_op("^")) fail("'^' outside I() is not supported (use I(x^2) for a power)");
    const std::string label = e.label();
    std::size_t index = f.variables.size();
    for (std::size_t i = 0; i < f.variables.size(); ++i)
      if (f.variables[i].label() == label) index = i;
    if (index == f.variables.size()) f.variables.push_back(std::move(e));
    TermSet s;
    s.terms.push_back({index});
    return s;
  }
  void check_no_number(const TermSet& s, const char* op) const {
    if (s.explicit_intercept) fail(std::string("0 or 1 cannot be an operand of '") + op + "'");
  }
  static TermSet interact(const TermSet& a, const TermSet& b) {
    TermSet out;
    for (const auto& x : a.terms)
      for (const auto& y : b.terms) {
        std::set<std::size_t> merged(x.begin(), x.end());
        merged.insert(y.begin(), y.end());
        add_term(out.terms, Term(merged.begin(), merged.end()));
      }
    return out;
  }
  static void add_term(std::vector<Term>& terms, const Term& t) {
    if (std::find(terms.begin(), terms.end(), t) == terms.end()) terms.push_back(t);
  }

  std::string_view text_;
  std::uint64_t max_depth_;
  std::uint64_t max_terms_;
  std::uint64_t depth_ = 0;
  int call_depth_ = 0;
  bool in_relevel_ = false;
  std::vector<Token> tokens_;
  std::size_t pos_ = 0;
};

void collect(const Expr& e, std::vector<std::string>& out) {
  if (e.kind == Expr::Kind::kColumn) {
    if (std::find(out.begin(), out.end(), e.name) == out.end()) out.push_back(e.name);
    return;
  }
  for (const auto& a : e.args) collect(a, out);
}

}  // namespace

std::string Expr::label() const {
  switch (kind) {
    case Kind::kNumber:
      return number_text;
    case Kind::kColumn:
      return name;
    case Kind::kNegate:
      return "-" + args[0].label();
    case Kind::kParen:
      return "(" + args[0].label() + ")";
    case Kind::kBinary: {
      // R's deparse puts spaces around + - * and the comparisons but not around / and ^.
      if (is_comparison(op))
        return args[0].label() + " " + comparison_text(op) + " " + args[1].label();
      const bool spaced = op == '+' || op == '-' || op == '*';
      const std::string mid = spaced ? std::string(" ") + op + " " : std::string(1, op);
      return args[0].label() + mid + args[1].label();
    }
    case Kind::kString:
      return "\"" + text + "\"";
    case Kind::kCall: {
      std::string out = name + "(";
      for (std::size_t i = 0; i < args.size(); ++i) {
        out += i ? ", " : "";
        if (i < arg_names.size() && !arg_names[i].empty()) out += arg_names[i] + " = ";
        out += args[i].label();
      }
      return out + ")";
    }
  }
  return "?";
}

void Expr::collect_columns(std::vector<std::string>& out) const { collect(*this, out); }

std::string Expr::factor_column() const {
  if (kind != Kind::kCall) return std::string();
  if (name == "factor") return args[0].name;
  if (name == "relevel") return args[0].kind == Kind::kColumn ? args[0].name : args[0].args[0].name;
  return std::string();
}

std::string Expr::reference_level() const {
  return kind == Kind::kCall && name == "relevel" ? args[1].text : std::string();
}

bool Expr::is_logical() const {
  if (kind == Kind::kParen) return args[0].is_logical();
  if (kind == Kind::kCall && name == "I") return args[0].is_logical();
  return kind == Kind::kBinary && is_comparison(op);
}

std::size_t Expr::width() const {
  return kind == Kind::kCall && name == "poly" ? static_cast<std::size_t>(args[1].number) : 1;
}

std::vector<std::string> Formula::columns() const {
  std::vector<std::string> out;
  if (has_response) response.collect_columns(out);
  for (const auto& v : variables) v.collect_columns(out);
  return out;
}

Formula parse_formula(std::string_view text, const ResourceLimits& limits) {
  if (text.find('~') == std::string_view::npos)
    throw InputError("formula '" + quoted(text) + "': missing '~' (write 'y ~ x1 + x2')");
  return Parser(text, limits).parse();
}

}  // namespace synthaudit::stats
