#include "stats/edit_rule.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <set>
#include <unordered_map>

#include "core/error.hpp"
#include "core/text.hpp"

namespace synthaudit::stats {

namespace {

enum class Type { kNumber, kText, kBool };

const char* type_name(Type type) {
  return type == Type::kNumber ? "a number" : type == Type::kText ? "text" : "a condition";
}

const std::vector<std::string> kAggregates = {"n",   "n_distinct", "sum", "min",
                                              "max", "mean",       "any", "all"};
const std::vector<std::string> kFunctions = {"is_missing", "n",    "n_distinct", "sum", "min",
                                             "max",        "mean", "any",        "all"};

}  // namespace

struct EditRule::Node {
  enum class Kind {
    kNumber,
    kText,
    kColumn,
    kNegate,
    kArith,
    kCompare,
    kAnd,
    kOr,
    kNot,
    kIn,
    kIsMissing,
    kAggregate
  };
  Kind kind = Kind::kNumber;
  Type type = Type::kNumber;
  double number = 0.0;     // kNumber
  std::string text;        // kText: the literal; kArith, kCompare: the operator; kAggregate: name
  std::size_t column = 0;  // kColumn
  std::vector<std::shared_ptr<const Node>> args;
  std::vector<double> numbers;     // kIn: number literals
  std::vector<std::string> texts;  // kIn: text literals
};

namespace {

using Node = EditRule::Node;
using NodePtr = std::shared_ptr<const Node>;

// ---- tokens ----------------------------------------------------------------------------------

struct Token {
  enum class Kind { kNumber, kText, kName, kOperator, kOpen, kClose, kComma, kEnd };
  Kind kind = Kind::kEnd;
  std::string text;  // the name, the text literal's value, the operator
  double number = 0.0;
  std::size_t position = 0;  // 1-based
};

bool name_start(unsigned char c) { return std::isalpha(c) || c == '_' || c >= 0x80; }

bool name_char(unsigned char c) { return name_start(c) || std::isdigit(c) || c == '.'; }

class Tokens {
 public:
  Tokens(const std::string& source, std::string where) : where_(std::move(where)) {
    std::size_t i = 0;
    const std::size_t n = source.size();
    while (true) {
      while (i < n && std::isspace(static_cast<unsigned char>(source[i]))) ++i;
      Token t;
      t.position = i + 1;
      if (i == n) {
        tokens_.push_back(t);
        break;
      }
      const unsigned char c = static_cast<unsigned char>(source[i]);
      if (std::isdigit(c) ||
          (c == '.' && i + 1 < n && std::isdigit(static_cast<unsigned char>(source[i + 1])))) {
        const char* start = source.c_str() + i;
        char* end = nullptr;
        t.number = std::strtod(start, &end);
        t.kind = Token::Kind::kNumber;
        t.text = std::string(start, static_cast<std::size_t>(end - start));
        i += static_cast<std::size_t>(end - start);
        if (i < n && name_char(static_cast<unsigned char>(source[i])))
          fail(t.position, "'" + t.text + source[i] + "...' is not a number or a column name " +
                               "(a column name that starts with a digit goes in backquotes: `" +
                               t.text + source[i] + "...`)");
      } else if (c == '"' || c == '\'') {
        t.kind = Token::Kind::kText;
        ++i;
        bool closed = false;
        while (i < n) {
          if (source[i] == '\\' && i + 1 < n) {
            t.text += source[i + 1];
            i += 2;
            continue;
          }
          if (source[i] == static_cast<char>(c)) {
            closed = true;
            ++i;
            break;
          }
          t.text += source[i++];
        }
        if (!closed) fail(t.position, "the text that starts here has no closing quote");
      } else if (c == '`') {
        t.kind = Token::Kind::kName;
        const std::size_t close = source.find('`', i + 1);
        if (close == std::string::npos)
          fail(t.position, "the column name that starts here has no closing backquote");
        t.text = source.substr(i + 1, close - i - 1);
        i = close + 1;
      } else if (name_start(c)) {
        t.kind = Token::Kind::kName;
        while (i < n && name_char(static_cast<unsigned char>(source[i]))) t.text += source[i++];
      } else if (c == '(' || c == ')' || c == ',') {
        t.kind = c == '('   ? Token::Kind::kOpen
                 : c == ')' ? Token::Kind::kClose
                            : Token::Kind::kComma;
        t.text = std::string(1, static_cast<char>(c));
        ++i;
      } else {
        static const std::vector<std::string> operators = {
            "==", "!=", "<=", ">=", "&&", "||", "<", ">", "&", "|", "!", "+", "-", "*", "/"};
        t.kind = Token::Kind::kOperator;
        for (const auto& op : operators)
          if (source.compare(i, op.size(), op) == 0) {
            t.text = op;
            break;
          }
        if (t.text.empty()) {
          if (c == '=') fail(t.position, "'=' alone: compare with '=='");
          fail(t.position, "unexpected character '" +
                               escape_controls(std::string(1, static_cast<char>(c))) + "'");
        }
        i += t.text.size();
        if (t.text == "&&") t.text = "&";
        if (t.text == "||") t.text = "|";
      }
      tokens_.push_back(t);
    }
  }

  const Token& peek() const { return tokens_[next_]; }
  const Token& take() { return tokens_[next_ < tokens_.size() - 1 ? next_++ : next_]; }
  bool at_operator(const std::string& op) const {
    return peek().kind == Token::Kind::kOperator && peek().text == op;
  }

  [[noreturn]] void fail(std::size_t position, const std::string& message) const {
    throw InputError(where_ + ": at position " + std::to_string(position) + ": " + message);
  }

 private:
  std::string where_;
  std::vector<Token> tokens_;
  std::size_t next_ = 0;
};

std::string describe(const Token& t) {
  switch (t.kind) {
    case Token::Kind::kEnd:
      return "the end of the expression";
    case Token::Kind::kText:
      return "the text \"" + t.text + "\"";
    default:
      return "'" + t.text + "'";
  }
}

// ---- the parser: recursive descent, types checked as nodes are made ------------------------

class Parser {
 public:
  Parser(const std::string& source, const std::string& where, const Table& schema, bool group_rule)
      : tokens_(source, where), schema_(schema), group_rule_(group_rule) {}

  NodePtr condition() {
    const Token& first = tokens_.peek();
    NodePtr node = disjunction();
    if (tokens_.peek().kind != Token::Kind::kEnd)
      tokens_.fail(tokens_.peek().position,
                   "expected an operator or the end, found " + describe(tokens_.peek()));
    require(*node, Type::kBool, first.position, "the rule");
    return node;
  }

  std::vector<std::size_t> columns() const { return {columns_.begin(), columns_.end()}; }

 private:
  Tokens tokens_;
  const Table& schema_;
  bool group_rule_;
  bool in_aggregate_ = false;
  std::set<std::size_t> columns_;

  static NodePtr make(Node node) { return std::make_shared<const Node>(std::move(node)); }

  void require(const Node& node, Type type, std::size_t position, const std::string& what) {
    if (node.type != type)
      tokens_.fail(position, what + " needs " + type_name(type) + ", but this is " +
                                 type_name(node.type) + hint(node, type));
  }

  std::string hint(const Node& node, Type wanted) const {
    if (node.kind == Node::Kind::kColumn && node.type == Type::kText && wanted == Type::kNumber)
      return " (column '" + schema_.column(node.column).name +
             "' is categorical: compare it with quoted text, e.g. " +
             schema_.column(node.column).name + " == \"1\")";
    if (node.type == Type::kBool && wanted != Type::kBool) return " (a comparison or condition)";
    return "";
  }

  NodePtr disjunction() {
    NodePtr left = conjunction();
    while (tokens_.at_operator("|")) {
      const Token op = tokens_.take();
      NodePtr right = conjunction();
      require(*left, Type::kBool, op.position, "'|'");
      require(*right, Type::kBool, op.position, "'|'");
      left = make({.kind = Node::Kind::kOr, .type = Type::kBool, .args = {left, right}});
    }
    return left;
  }

  NodePtr conjunction() {
    NodePtr left = negation();
    while (tokens_.at_operator("&")) {
      const Token op = tokens_.take();
      NodePtr right = negation();
      require(*left, Type::kBool, op.position, "'&'");
      require(*right, Type::kBool, op.position, "'&'");
      left = make({.kind = Node::Kind::kAnd, .type = Type::kBool, .args = {left, right}});
    }
    return left;
  }

  NodePtr negation() {
    if (tokens_.at_operator("!")) {
      const Token op = tokens_.take();
      NodePtr operand = negation();
      require(*operand, Type::kBool, op.position, "'!'");
      return make({.kind = Node::Kind::kNot, .type = Type::kBool, .args = {operand}});
    }
    return comparison();
  }

  static bool comparison_operator(const Token& t) {
    return t.kind == Token::Kind::kOperator && (t.text == "==" || t.text == "!=" || t.text == "<" ||
                                                t.text == "<=" || t.text == ">" || t.text == ">=");
  }

  NodePtr comparison() {
    const std::size_t left_position = tokens_.peek().position;
    NodePtr left = additive();
    if (comparison_operator(tokens_.peek())) {
      const Token op = tokens_.take();
      const std::size_t right_position = tokens_.peek().position;
      NodePtr right = additive();
      const bool ordering = op.text != "==" && op.text != "!=";
      for (const auto& [side, position] :
           {std::pair{left, left_position}, std::pair{right, right_position}}) {
        if (side->type == Type::kBool)
          tokens_.fail(position, "'" + op.text + "' compares values, but this is a condition");
        if (ordering && side->type == Type::kText)
          tokens_.fail(position, "'" + op.text + "' orders numbers, but this is text" +
                                     (side->kind == Node::Kind::kColumn
                                          ? " (column '" + schema_.column(side->column).name +
                                                "' is categorical; compare it with == or in)"
                                          : ""));
      }
      if (left->type != right->type)
        tokens_.fail(op.position,
                     "'" + op.text + "' compares " + type_name(left->type) + " with " +
                         type_name(right->type) +
                         hint(left->type == Type::kText ? *left : *right, Type::kNumber));
      if (comparison_operator(tokens_.peek()))
        tokens_.fail(tokens_.peek().position, "comparisons do not chain: write a < b & b < c");
      return make({.kind = Node::Kind::kCompare,
                   .type = Type::kBool,
                   .text = op.text,
                   .args = {left, right}});
    }
    if (tokens_.peek().kind == Token::Kind::kName && tokens_.peek().text == "in") {
      const Token in = tokens_.take();
      if (left->type == Type::kBool)
        tokens_.fail(left_position, "'in' looks a value up in a list, but this is a condition");
      if (tokens_.peek().kind != Token::Kind::kOpen)
        tokens_.fail(
            tokens_.peek().position,
            "expected '(' and a list of values after 'in', found " + describe(tokens_.peek()));
      tokens_.take();
      Node node{.kind = Node::Kind::kIn, .type = Type::kBool, .args = {left}};
      while (true) {
        const Token value = tokens_.take();
        bool negative = false;
        Token number = value;
        if (value.kind == Token::Kind::kOperator && value.text == "-") {
          negative = true;
          number = tokens_.take();
        }
        if (number.kind == Token::Kind::kNumber && left->type == Type::kNumber)
          node.numbers.push_back(negative ? -number.number : number.number);
        else if (value.kind == Token::Kind::kText && left->type == Type::kText)
          node.texts.push_back(value.text);
        else
          tokens_.fail(value.position,
                       "the list after 'in' holds " +
                           std::string(left->type == Type::kText ? "quoted text" : "numbers") +
                           " for " + type_name(left->type) + ", found " + describe(value));
        const Token next = tokens_.take();
        if (next.kind == Token::Kind::kClose) break;
        if (next.kind != Token::Kind::kComma)
          tokens_.fail(next.position, "expected ',' or ')' in the list, found " + describe(next));
      }
      (void)in;
      return make(std::move(node));
    }
    return left;
  }

  // One level of left-associative arithmetic: `operators` over operands parsed by `operand`.
  NodePtr arithmetic(const std::vector<std::string>& operators, NodePtr (Parser::*operand)()) {
    auto at_one = [&] {
      return std::any_of(operators.begin(), operators.end(),
                         [&](const std::string& op) { return tokens_.at_operator(op); });
    };
    NodePtr left = (this->*operand)();
    while (at_one()) {
      const Token op = tokens_.take();
      NodePtr right = (this->*operand)();
      require(*left, Type::kNumber, op.position, "'" + op.text + "'");
      require(*right, Type::kNumber, op.position, "'" + op.text + "'");
      left = make({.kind = Node::Kind::kArith,
                   .type = Type::kNumber,
                   .text = op.text,
                   .args = {left, right}});
    }
    return left;
  }

  NodePtr additive() { return arithmetic({"+", "-"}, &Parser::multiplicative); }
  NodePtr multiplicative() { return arithmetic({"*", "/"}, &Parser::unary); }

  NodePtr unary() {
    if (tokens_.at_operator("-")) {
      const Token op = tokens_.take();
      NodePtr operand = unary();
      require(*operand, Type::kNumber, op.position, "'-'");
      return make({.kind = Node::Kind::kNegate, .type = Type::kNumber, .args = {operand}});
    }
    return primary();
  }

  NodePtr primary() {
    const Token t = tokens_.take();
    switch (t.kind) {
      case Token::Kind::kNumber:
        return make({.kind = Node::Kind::kNumber, .type = Type::kNumber, .number = t.number});
      case Token::Kind::kText:
        return make({.kind = Node::Kind::kText, .type = Type::kText, .text = t.text});
      case Token::Kind::kOpen: {
        NodePtr inner = disjunction();
        const Token close = tokens_.take();
        if (close.kind != Token::Kind::kClose)
          tokens_.fail(close.position, "expected ')' to close the '(' at position " +
                                           std::to_string(t.position) + ", found " +
                                           describe(close));
        return inner;
      }
      case Token::Kind::kName:
        if (tokens_.peek().kind == Token::Kind::kOpen) return call(t);
        return column(t);
      default:
        tokens_.fail(t.position, "expected a value, a column or '(', found " + describe(t));
    }
  }

  NodePtr column(const Token& t) {
    const auto index = schema_.find(t.text);
    if (!index)
      tokens_.fail(t.position,
                   "no column '" + t.text + "'" + column_hint(t.text, schema_.column_names()));
    if (group_rule_ && !in_aggregate_)
      tokens_.fail(t.position, "in a rule over groups, column '" + t.text +
                                   "' is read inside n_distinct(), sum(), min(), max(), "
                                   "mean(), any() or all()");
    columns_.insert(*index);
    return make({.kind = Node::Kind::kColumn,
                 .type = schema_.column(*index).is_numeric() ? Type::kNumber : Type::kText,
                 .column = *index});
  }

  NodePtr call(const Token& name) {
    const std::string& f = name.text;
    if (std::find(kFunctions.begin(), kFunctions.end(), f) == kFunctions.end())
      tokens_.fail(name.position, "no function '" + f + "'" + did_you_mean(f, kFunctions) +
                                      "; the functions: " + join(kFunctions, ", "));
    const bool aggregate =
        std::find(kAggregates.begin(), kAggregates.end(), f) != kAggregates.end();
    if (aggregate && !group_rule_)
      tokens_.fail(name.position, f + "() summarises a group: it needs the rule's group_by");
    if (aggregate && in_aggregate_)
      tokens_.fail(name.position, f + "() inside another summary of the group");
    tokens_.take();  // (
    std::vector<NodePtr> args;
    std::vector<std::size_t> positions;
    const bool was_in_aggregate = in_aggregate_;
    in_aggregate_ = in_aggregate_ || aggregate;
    if (tokens_.peek().kind != Token::Kind::kClose) {
      while (true) {
        positions.push_back(tokens_.peek().position);
        args.push_back(disjunction());
        const Token next = tokens_.take();
        if (next.kind == Token::Kind::kClose) break;
        if (next.kind != Token::Kind::kComma)
          tokens_.fail(next.position, "expected ',' or ')' after an argument of " + f +
                                          "(), found " + describe(next));
      }
    } else {
      tokens_.take();
    }
    in_aggregate_ = was_in_aggregate;
    const std::size_t wanted = f == "n" ? 0 : 1;
    if (args.size() != wanted)
      tokens_.fail(name.position,
                   f + "() takes " +
                       (wanted == 0 ? std::string("no argument") : std::string("one argument")) +
                       ", given " + std::to_string(args.size()));
    if (f == "is_missing") {
      if (args[0]->type == Type::kBool)
        tokens_.fail(positions[0], "is_missing() takes a column or a number, not a condition");
      return make({.kind = Node::Kind::kIsMissing, .type = Type::kBool, .args = args});
    }
    Type type = Type::kNumber;
    if (f == "any" || f == "all") {
      require(*args[0], Type::kBool, positions[0], f + "()");
      type = Type::kBool;
    } else if (f == "sum" || f == "min" || f == "max" || f == "mean") {
      require(*args[0], Type::kNumber, positions[0], f + "()");
    } else if (f == "n_distinct" && args[0]->type == Type::kBool) {
      tokens_.fail(positions[0], "n_distinct() counts values, not a condition");
    }
    return make({.kind = Node::Kind::kAggregate, .type = type, .text = f, .args = args});
  }
};

// ---- evaluation ------------------------------------------------------------------------------

// A value for every record (or group), or one for all (`constant`).
struct Value {
  Type type = Type::kNumber;
  bool constant = false;
  std::vector<double> numbers;      // kNumber
  std::vector<std::uint8_t> bools;  // kBool
  const Column* column = nullptr;   // kText from a column
  std::string literal;              // kText literal (column null)

  double number(std::size_t i) const { return numbers[constant ? 0 : i]; }
  bool truth(std::size_t i) const { return bools[constant ? 0 : i] != 0; }
};

constexpr std::size_t kNoGroup = std::numeric_limits<std::size_t>::max();
constexpr std::uint32_t kNoLevel = kMissingCode - 1;

// The code of `level` in `column`'s dictionary, or kNoLevel when it has none.
std::uint32_t code_of(const Column& column, const std::string& level) {
  const auto code = column.dictionary ? column.dictionary->find(level) : std::nullopt;
  return code ? *code : kNoLevel;
}

struct Frame {
  const Table& table;
  std::size_t length;                        // records, or groups
  const std::vector<std::size_t>* group_of;  // per record: its group (group frames)
  std::size_t groups = 0;
};

Value evaluate(const Node& node, const Frame& frame);

Value bools_of(std::size_t length) {
  Value v;
  v.type = Type::kBool;
  v.bools.assign(length, 0);
  return v;
}

Value compare(const Node& node, const Frame& frame) {
  const Value a = evaluate(*node.args[0], frame);
  const Value b = evaluate(*node.args[1], frame);
  const std::string& op = node.text;
  Value out = bools_of(frame.length);
  if (a.type == Type::kNumber) {
    for (std::size_t i = 0; i < frame.length; ++i) {
      const double x = a.number(i), y = b.number(i);
      bool r = false;
      if (!std::isnan(x) && !std::isnan(y)) {
        r = op == "=="   ? x == y
            : op == "!=" ? x != y
            : op == "<"  ? x < y
            : op == "<=" ? x <= y
            : op == ">"  ? x > y
                         : x >= y;
      }
      out.bools[i] = r;
    }
    return out;
  }
  const bool equal = op == "==";
  if (a.column == nullptr && b.column == nullptr) {
    out.constant = true;
    out.bools = {static_cast<std::uint8_t>((a.literal == b.literal) == equal)};
    return out;
  }
  if (a.column != nullptr && b.column != nullptr) {
    // Two categorical columns: equal levels by their text (each column has its own dictionary).
    std::vector<std::uint32_t> map(a.column->cardinality(), kNoLevel);
    for (std::uint32_t k = 0; k < map.size(); ++k)
      map[k] = code_of(*b.column, a.column->dictionary->level(k));
    for (std::size_t i = 0; i < frame.length; ++i) {
      const std::uint32_t x = a.column->codes[i], y = b.column->codes[i];
      if (is_missing(x) || is_missing(y)) continue;
      out.bools[i] = (map[x] == y) == equal;
    }
    return out;
  }
  const Value& column = a.column != nullptr ? a : b;
  const Value& literal = a.column != nullptr ? b : a;
  const std::uint32_t code = code_of(*column.column, literal.literal);
  for (std::size_t i = 0; i < frame.length; ++i) {
    const std::uint32_t x = column.column->codes[i];
    if (is_missing(x)) continue;
    out.bools[i] = (x == code) == equal;
  }
  return out;
}

Value look_up(const Node& node, const Frame& frame) {
  const Value a = evaluate(*node.args[0], frame);
  Value out = bools_of(frame.length);
  if (a.type == Type::kNumber) {
    const std::set<double> wanted(node.numbers.begin(), node.numbers.end());
    for (std::size_t i = 0; i < frame.length; ++i) {
      const double x = a.number(i);
      out.bools[i] = !std::isnan(x) && wanted.count(x) > 0;
    }
    return out;
  }
  if (a.column == nullptr) {
    out.constant = true;
    out.bools = {static_cast<std::uint8_t>(
        std::find(node.texts.begin(), node.texts.end(), a.literal) != node.texts.end())};
    return out;
  }
  std::vector<std::uint8_t> wanted(a.column->cardinality(), 0);
  for (const auto& level : node.texts)
    if (const std::uint32_t code = code_of(*a.column, level); code != kNoLevel) wanted[code] = 1;
  for (std::size_t i = 0; i < frame.length; ++i) {
    const std::uint32_t x = a.column->codes[i];
    out.bools[i] = !is_missing(x) && wanted[x];
  }
  return out;
}

// A summary of each group's records: the argument evaluated over the records, reduced by group.
Value aggregate(const Node& node, const Frame& frame) {
  const std::vector<std::size_t>& group_of = *frame.group_of;
  const std::size_t records = group_of.size();
  const Frame record_frame{frame.table, records, nullptr, 0};
  const std::string& f = node.text;
  Value out;
  out.type = node.type;
  if (f == "n") {
    out.numbers.assign(frame.groups, 0.0);
    for (std::size_t g : group_of)
      if (g != kNoGroup) out.numbers[g] += 1.0;
    return out;
  }
  const Value arg = evaluate(*node.args[0], record_frame);
  if (f == "any" || f == "all") {
    const bool any = f == "any";
    out.bools.assign(frame.groups, any ? 0 : 1);
    for (std::size_t r = 0; r < records; ++r) {
      const std::size_t g = group_of[r];
      if (g == kNoGroup) continue;
      if (any && arg.truth(r)) out.bools[g] = 1;
      if (!any && !arg.truth(r)) out.bools[g] = 0;
    }
    return out;
  }
  if (f == "n_distinct") {
    // Distinct non-missing values per group, as pandas' nunique().
    std::vector<std::pair<std::size_t, double>> seen;
    seen.reserve(records);
    for (std::size_t r = 0; r < records; ++r) {
      const std::size_t g = group_of[r];
      if (g == kNoGroup) continue;
      double key = 0.0;
      if (arg.type == Type::kNumber) {
        key = arg.number(r);
        if (std::isnan(key)) continue;
        if (key == 0.0) key = 0.0;  // -0 and 0 are one value
      } else if (arg.column != nullptr) {
        const std::uint32_t code = arg.column->codes[r];
        if (is_missing(code)) continue;
        key = static_cast<double>(code);
      }
      seen.emplace_back(g, key);
    }
    std::sort(seen.begin(), seen.end());
    seen.erase(std::unique(seen.begin(), seen.end()), seen.end());
    out.numbers.assign(frame.groups, 0.0);
    for (const auto& [g, key] : seen) out.numbers[g] += 1.0;
    return out;
  }
  // sum, min, max, mean over the non-missing values (sum 0 and the others missing when none).
  std::vector<double> total(frame.groups, 0.0), extreme(frame.groups, NAN);
  std::vector<std::size_t> counted(frame.groups, 0);
  for (std::size_t r = 0; r < records; ++r) {
    const std::size_t g = group_of[r];
    if (g == kNoGroup) continue;
    const double x = arg.number(r);
    if (std::isnan(x)) continue;
    total[g] += x;
    ++counted[g];
    if (std::isnan(extreme[g]) || (f == "min" ? x < extreme[g] : x > extreme[g])) extreme[g] = x;
  }
  out.numbers.assign(frame.groups, NAN);
  for (std::size_t g = 0; g < frame.groups; ++g) {
    if (f == "sum")
      out.numbers[g] = total[g];
    else if (f == "mean")
      out.numbers[g] = counted[g] ? total[g] / static_cast<double>(counted[g]) : NAN;
    else
      out.numbers[g] = extreme[g];
  }
  return out;
}

Value evaluate(const Node& node, const Frame& frame) {
  using Kind = Node::Kind;
  switch (node.kind) {
    case Kind::kNumber: {
      Value v;
      v.constant = true;
      v.numbers = {node.number};
      return v;
    }
    case Kind::kText: {
      Value v;
      v.type = Type::kText;
      v.constant = true;
      v.literal = node.text;
      return v;
    }
    case Kind::kColumn: {
      const Column& column = frame.table.column(node.column);
      Value v;
      if (column.is_numeric()) {
        v.numbers = column.numeric;
      } else {
        v.type = Type::kText;
        v.column = &column;
      }
      return v;
    }
    case Kind::kNegate: {
      Value v = evaluate(*node.args[0], frame);
      for (auto& x : v.numbers) x = -x;
      return v;
    }
    case Kind::kArith: {
      const Value a = evaluate(*node.args[0], frame);
      const Value b = evaluate(*node.args[1], frame);
      Value v;
      v.constant = a.constant && b.constant;
      const std::size_t length = v.constant ? 1 : frame.length;
      v.numbers.resize(length);
      const char op = node.text[0];
      for (std::size_t i = 0; i < length; ++i) {
        const double x = a.number(i), y = b.number(i);
        v.numbers[i] = op == '+' ? x + y : op == '-' ? x - y : op == '*' ? x * y : x / y;
      }
      return v;
    }
    case Kind::kCompare:
      return compare(node, frame);
    case Kind::kIn:
      return look_up(node, frame);
    case Kind::kAnd:
    case Kind::kOr: {
      const Value a = evaluate(*node.args[0], frame);
      const Value b = evaluate(*node.args[1], frame);
      Value v = bools_of(frame.length);
      const bool both = node.kind == Kind::kAnd;
      for (std::size_t i = 0; i < frame.length; ++i)
        v.bools[i] = both ? (a.truth(i) && b.truth(i)) : (a.truth(i) || b.truth(i));
      return v;
    }
    case Kind::kNot: {
      Value v = evaluate(*node.args[0], frame);
      for (auto& x : v.bools) x = !x;
      return v;
    }
    case Kind::kIsMissing: {
      const Value a = evaluate(*node.args[0], frame);
      Value v = bools_of(frame.length);
      if (a.type == Type::kNumber) {
        for (std::size_t i = 0; i < frame.length; ++i) v.bools[i] = std::isnan(a.number(i));
      } else if (a.column != nullptr) {
        for (std::size_t i = 0; i < frame.length; ++i) v.bools[i] = is_missing(a.column->codes[i]);
      }
      return v;
    }
    case Kind::kAggregate:
      return aggregate(node, frame);
  }
  return {};
}

// Each record's group: the distinct combinations of the group_by values in order of first
// appearance; a record with a missing group_by value is in no group (as pandas' groupby).
std::vector<std::size_t> group_records(const Table& table, const std::vector<std::size_t>& columns,
                                       std::size_t& groups) {
  std::vector<std::size_t> group_of(table.rows(), kNoGroup);
  std::unordered_map<std::string, std::size_t> index;
  std::string key;
  for (std::size_t r = 0; r < table.rows(); ++r) {
    key.clear();
    bool missing = false;
    for (std::size_t c : columns) {
      const Column& column = table.column(c);
      std::uint64_t bits = 0;
      if (column.is_numeric()) {
        double x = column.numeric[r];
        if (std::isnan(x)) missing = true;
        if (x == 0.0) x = 0.0;
        std::memcpy(&bits, &x, sizeof bits);
      } else {
        if (is_missing(column.codes[r])) missing = true;
        bits = column.codes[r];
      }
      key.append(reinterpret_cast<const char*>(&bits), sizeof bits);
    }
    if (missing) continue;
    const auto [it, added] = index.emplace(key, index.size());
    group_of[r] = it->second;
  }
  groups = index.size();
  return group_of;
}

}  // namespace

EditRule EditRule::compile(const EditRuleSpec& spec, const Table& schema) {
  EditRule rule;
  rule.spec_ = spec;
  const std::string where = spec.where + (spec.name.empty() ? "" : " ('" + spec.name + "')");
  if (std::find(kRuleSeverities.begin(), kRuleSeverities.end(), spec.severity) ==
      kRuleSeverities.end())
    throw InputError(where + ".severity: '" + spec.severity + "' is not error or warning" +
                     did_you_mean(spec.severity, kRuleSeverities));
  std::set<std::size_t> read;
  for (std::size_t i = 0; i < spec.group_by.size(); ++i) {
    const auto index = schema.find(spec.group_by[i]);
    if (!index)
      throw InputError(where + ".group_by: no column '" + spec.group_by[i] + "'" +
                       column_hint(spec.group_by[i], schema.column_names()));
    rule.group_columns_.push_back(*index);
    read.insert(*index);
  }
  const bool groups = !rule.group_columns_.empty();
  if (spec.then.empty()) throw InputError(where + ".then: the rule's condition is empty");
  Parser then(spec.then, where + ".then", schema, groups);
  rule.then_ = then.condition();
  std::vector<std::size_t> expression_columns = then.columns();
  if (!spec.when.empty()) {
    Parser when(spec.when, where + ".when", schema, groups);
    rule.when_ = when.condition();
    const auto more = when.columns();
    expression_columns.insert(expression_columns.end(), more.begin(), more.end());
  }
  read.insert(expression_columns.begin(), expression_columns.end());
  rule.columns_.assign(read.begin(), read.end());
  return rule;
}

RuleCount EditRule::count(const Table& table, std::size_t examples) const {
  RuleCount out;
  std::size_t groups = 0;
  std::vector<std::size_t> group_of;
  if (over_groups()) group_of = group_records(table, group_columns_, groups);
  const Frame frame{table, over_groups() ? groups : table.rows(),
                    over_groups() ? &group_of : nullptr, groups};
  const Value then = evaluate(*then_, frame);
  Value when;
  if (when_) when = evaluate(*when_, frame);
  // Missing values in the columns the expressions read (the group_by columns are never missing
  // for a record in a group).
  std::vector<std::size_t> expression_columns;
  for (std::size_t c : columns_)
    if (std::find(group_columns_.begin(), group_columns_.end(), c) == group_columns_.end())
      expression_columns.push_back(c);
  std::vector<std::uint8_t> missing(frame.length, 0);
  for (std::size_t r = 0; r < table.rows(); ++r) {
    const std::size_t at = over_groups() ? group_of[r] : r;
    if (at == kNoGroup || missing[at]) continue;
    for (std::size_t c : expression_columns)
      if (table.column(c).missing(r)) {
        missing[at] = 1;
        break;
      }
  }
  std::vector<std::size_t> first_row;
  if (over_groups()) {
    first_row.assign(groups, kNoGroup);
    for (std::size_t r = 0; r < table.rows(); ++r)
      if (group_of[r] != kNoGroup && first_row[group_of[r]] == kNoGroup) first_row[group_of[r]] = r;
  }
  for (std::size_t i = 0; i < frame.length; ++i) {
    if (when_ && !when.truth(i)) continue;
    ++out.applies;
    out.with_missing += missing[i];
    if (then.truth(i)) continue;
    ++out.violations;
    if (out.examples.size() < examples) out.examples.push_back(over_groups() ? first_row[i] : i);
  }
  return out;
}

}  // namespace synthaudit::stats
