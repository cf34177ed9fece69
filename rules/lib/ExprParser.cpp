//===- ExprParser.cpp - Lexer and recursive-descent parser for Expr -------===//
//
// The grammar is in gestell/Expr.h. The lexer makes the whole token list
// first (expressions are a line long); the parser is recursive descent with
// a depth limit, so no input can exhaust the stack, and it checks operand
// types (number vs condition) as it builds each node. Every error is an
// InputError at the line and column of the offending token.
//
//===----------------------------------------------------------------------===//
#include "ExprImpl.h"

#include "gestell/Error.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/GlobPattern.h"

#include <algorithm>
#include <charconv>
#include <cmath>

using namespace llvm;

namespace gestell {

namespace {

enum class Tok : uint8_t {
  Number,
  Ident,
  String,
  LParen,
  RParen,
  Dot,
  Plus,
  Minus,
  Star,
  Slash,
  Lt,
  Le,
  Gt,
  Ge,
  EqEq,
  Ne,
  End,
};

struct Token {
  Tok K = Tok::End;
  size_t Offset = 0; ///< into the text
  StringRef Text;    ///< as written
  std::string Str;   ///< String: contents with escapes applied
  double Num = 0;    ///< Number
};

/// Nesting limit: deeper input is an error, never a stack overflow.
constexpr unsigned MaxDepth = 200;
/// Height of the parsed tree, chained operators included ("1 + 1 + ..."
/// nests to the left): evaluation and printing recurse that deep.
constexpr unsigned MaxHeight = 1000;

constexpr StringRef ResourceNames[] = {
    "registers",      "stack",         "local",        "shared_static",
    "shared_dynamic", "blocks_per_sm", "warps_per_sm", "occupancy"};

class Parser {
public:
  Parser(StringRef Text, const FamilyTable &Families, StringRef SourceName,
         Expr::Impl &Out)
      : Text(Text), Families(Families), SourceName(SourceName), Out(Out) {}

  Error run();

private:
  // Errors.
  std::pair<unsigned, unsigned> lineCol(size_t Offset) const;
  Error errorAt(size_t Offset, const Twine &Message) const;
  std::string describe(const Token &T) const;

  // Lexing.
  Error lex();
  Error lexNumber(size_t &I);
  Error lexString(size_t &I);
  Error lexOperator(size_t &I);
  void push(Tok K, size_t Begin, size_t End) {
    Token T;
    T.K = K;
    T.Offset = Begin;
    T.Text = Text.slice(Begin, End);
    Tokens.push_back(std::move(T));
  }

  // Parsing.
  const Token &peek(unsigned Ahead = 0) const {
    size_t I = std::min(Pos + Ahead, Tokens.size() - 1);
    return Tokens[I];
  }
  const Token &take() {
    const Token &T = Tokens[Pos];
    if (Pos + 1 < Tokens.size())
      ++Pos;
    return T;
  }
  bool isWord(const Token &T, StringRef W) const {
    return T.K == Tok::Ident && T.Text == W;
  }

  struct Parsed {
    int Node = -1;
    size_t Offset = 0; ///< where the subexpression starts
  };
  Expected<Parsed> parseOr(unsigned Depth);
  Expected<Parsed> parseAnd(unsigned Depth);
  Expected<Parsed> parseNot(unsigned Depth);
  Expected<Parsed> parseCompare(unsigned Depth);
  Expected<Parsed> parseSum(unsigned Depth);
  Expected<Parsed> parseProduct(unsigned Depth);
  Expected<Parsed> parseUnary(unsigned Depth);
  Expected<Parsed> parsePrimary(unsigned Depth);
  Expected<Parsed> parseMetric();
  Error parseQualifiers(Metric &M, bool &StageWritten);
  Error parseMeasure(Metric &M, bool StageWritten, size_t Start);
  Error parseCalledMeasure(Metric &M, const Token &Name, bool StageWritten);
  Error parseOpcode(Metric &M, const Token &Name, bool StageWritten);
  Error unknownMeasure(const Metric &M, const Token &Name, bool StageWritten);
  Error parseScope(Metric &M);
  Expected<std::string> parseCallArgument(const Token &Callee);

  Error needNumber(const Parsed &P) const;
  Error needCondition(const Parsed &P) const;
  int add(ExprNode N) {
    unsigned H = 1;
    for (int C : {N.L, N.R})
      if (C >= 0)
        H = std::max(H, Height[C] + 1);
    if (H > MaxHeight && !TooTallAt)
      TooTallAt = peek().Offset;
    Height.push_back(H);
    Out.Nodes.push_back(N);
    return int(Out.Nodes.size() - 1);
  }
  std::vector<unsigned> Height; ///< per node of Out.Nodes
  std::optional<size_t> TooTallAt;
  bool isCondition(const Parsed &P) const {
    return Out.Nodes[P.Node].IsCondition;
  }
  std::string suggestion(StringRef Word, ArrayRef<StringRef> Candidates) const;

  StringRef Text;
  const FamilyTable &Families;
  StringRef SourceName;
  Expr::Impl &Out;
  std::vector<Token> Tokens;
  size_t Pos = 0;
};

/// 1-based line and column of Offset in Text.
std::pair<unsigned, unsigned> lineColOf(StringRef Text, size_t Offset) {
  unsigned Line = 1;
  size_t LineStart = 0;
  for (size_t I = 0; I < Offset && I < Text.size(); ++I)
    if (Text[I] == '\n') {
      ++Line;
      LineStart = I + 1;
    }
  return {Line, unsigned(Offset - LineStart + 1)};
}

std::pair<unsigned, unsigned> Parser::lineCol(size_t Offset) const {
  return lineColOf(Text, Offset);
}

Error Parser::errorAt(size_t Offset, const Twine &Message) const {
  auto [Line, Col] = lineCol(Offset);
  return inputError(SourceName, Line, Col, Message);
}

std::string Parser::describe(const Token &T) const {
  if (T.K == Tok::End)
    return "the end of the expression";
  return ("'" + T.Text + "'").str();
}

Error Parser::lex() {
  size_t I = 0, N = Text.size();
  while (I < N) {
    char C = Text[I];
    if (C == ' ' || C == '\t' || C == '\n' || C == '\r') {
      ++I;
      continue;
    }
    if (isAlpha(C) || C == '_') {
      size_t Begin = I;
      while (I < N && (isAlnum(Text[I]) || Text[I] == '_'))
        ++I;
      push(Tok::Ident, Begin, I);
      continue;
    }
    Error E = isDigit(C) ? lexNumber(I)
              : C == '"' ? lexString(I)
                         : lexOperator(I);
    if (E)
      return E;
  }
  Token End;
  End.K = Tok::End;
  End.Offset = N;
  Tokens.push_back(std::move(End));
  return Error::success();
}

Error Parser::lexNumber(size_t &I) {
  size_t Begin = I, N = Text.size();
  while (I < N && isDigit(Text[I]))
    ++I;
  if (I + 1 < N && Text[I] == '.' && isDigit(Text[I + 1])) {
    ++I;
    while (I < N && isDigit(Text[I]))
      ++I;
  }
  if (I < N && (isAlpha(Text[I]) || Text[I] == '_'))
    return errorAt(I, "expected an operator after the number '" +
                          Text.slice(Begin, I) + "'");
  push(Tok::Number, Begin, I);
  double V = 0;
  auto R = std::from_chars(Text.data() + Begin, Text.data() + I, V);
  if (R.ec != std::errc() || !std::isfinite(V))
    return errorAt(Begin, "number out of range");
  Tokens.back().Num = V;
  return Error::success();
}

Error Parser::lexString(size_t &I) {
  size_t Begin = I, N = Text.size();
  std::string S;
  ++I;
  bool Closed = false;
  while (I < N) {
    char D = Text[I];
    if (D == '"') {
      Closed = true;
      ++I;
      break;
    }
    if (D == '\\') {
      if (I + 1 < N && (Text[I + 1] == '"' || Text[I + 1] == '\\')) {
        S += Text[I + 1];
        I += 2;
        continue;
      }
      return errorAt(I, "unknown escape in string (only \\\" and \\\\)");
    }
    if (D == '\n')
      break;
    if (static_cast<unsigned char>(D) < 0x20)
      return errorAt(I, "control character in string");
    S += D;
    ++I;
  }
  if (!Closed)
    return errorAt(Begin, "unterminated string");
  push(Tok::String, Begin, I);
  Tokens.back().Str = std::move(S);
  return Error::success();
}

/// An operator or parenthesis, or the error for what is none.
Error Parser::lexOperator(size_t &I) {
  char C = Text[I];
  bool ThenEq = I + 1 < Text.size() && Text[I + 1] == '=';
  auto Op = [&](Tok K, size_t Len) {
    push(K, I, I + Len);
    I += Len;
    return Error::success();
  };
  switch (C) {
  case '(':
    return Op(Tok::LParen, 1);
  case ')':
    return Op(Tok::RParen, 1);
  case '.':
    return Op(Tok::Dot, 1);
  case '+':
    return Op(Tok::Plus, 1);
  case '-':
    return Op(Tok::Minus, 1);
  case '*':
    return Op(Tok::Star, 1);
  case '/':
    return Op(Tok::Slash, 1);
  case '<':
    return ThenEq ? Op(Tok::Le, 2) : Op(Tok::Lt, 1);
  case '>':
    return ThenEq ? Op(Tok::Ge, 2) : Op(Tok::Gt, 1);
  case '=':
    if (ThenEq)
      return Op(Tok::EqEq, 2);
    return errorAt(I, "unexpected '='; did you mean '=='?");
  case '!':
    if (ThenEq)
      return Op(Tok::Ne, 2);
    return errorAt(I, "unexpected '!'; write 'not'");
  case '&':
    return errorAt(I, "unexpected '&'; write 'and'");
  case '|':
    return errorAt(I, "unexpected '|'; write 'or'");
  case '\'':
    return errorAt(I, "strings are written in double quotes");
  default:
    break;
  }
  if (isPrint(C))
    return errorAt(I, Twine("unexpected character '") + Twine(C) + "'");
  return errorAt(I, "unexpected byte 0x" + utohexstr(uint8_t(C), true, 2));
}

std::string Parser::suggestion(StringRef Word,
                               ArrayRef<StringRef> Candidates) const {
  StringRef Best;
  unsigned BestDist = ~0u;
  for (StringRef C : Candidates) {
    unsigned D = Word.edit_distance(C, /*AllowReplacements=*/true,
                                    /*MaxEditDistance=*/BestDist);
    if (D < BestDist || (D == BestDist && C < Best)) {
      BestDist = D;
      Best = C;
    }
  }
  if (Best.empty() || BestDist > std::max<size_t>(1, (Word.size() + 2) / 3))
    return "";
  return ("; did you mean '" + Best + "'?").str();
}

Error Parser::needNumber(const Parsed &P) const {
  if (!isCondition(P))
    return Error::success();
  return errorAt(P.Offset, "expected a number here, found a condition");
}

Error Parser::needCondition(const Parsed &P) const {
  if (isCondition(P))
    return Error::success();
  return errorAt(P.Offset,
                 "expected a condition (a comparison) here, found a number");
}

Error Parser::run() {
  if (Error E = lex())
    return E;
  if (peek().K == Tok::End)
    return errorAt(0, "expected an expression");
  Expected<Parsed> P = parseOr(0);
  if (!P)
    return P.takeError();
  if (TooTallAt)
    return errorAt(*TooTallAt, "expression too long: more than " +
                                   Twine(MaxHeight) +
                                   " operators chained or nested");
  if (peek().K != Tok::End)
    return errorAt(peek().Offset,
                   "unexpected " + describe(peek()) + " after the expression");
  Out.Root = P->Node;
  return Error::success();
}

Expected<Parser::Parsed> Parser::parseOr(unsigned Depth) {
  if (Depth > MaxDepth)
    return errorAt(peek().Offset, "expression nested too deeply");
  Expected<Parsed> L = parseAnd(Depth + 1);
  if (!L)
    return L;
  while (isWord(peek(), "or")) {
    take();
    Expected<Parsed> R = parseAnd(Depth + 1);
    if (!R)
      return R;
    if (Error E = needCondition(*L))
      return E;
    if (Error E = needCondition(*R))
      return E;
    L->Node = add({ExprOp::Or, 0, 0, L->Node, R->Node, true});
  }
  return L;
}

Expected<Parser::Parsed> Parser::parseAnd(unsigned Depth) {
  Expected<Parsed> L = parseNot(Depth + 1);
  if (!L)
    return L;
  while (isWord(peek(), "and")) {
    take();
    Expected<Parsed> R = parseNot(Depth + 1);
    if (!R)
      return R;
    if (Error E = needCondition(*L))
      return E;
    if (Error E = needCondition(*R))
      return E;
    L->Node = add({ExprOp::And, 0, 0, L->Node, R->Node, true});
  }
  return L;
}

Expected<Parser::Parsed> Parser::parseNot(unsigned Depth) {
  if (Depth > MaxDepth)
    return errorAt(peek().Offset, "expression nested too deeply");
  if (!isWord(peek(), "not"))
    return parseCompare(Depth + 1);
  size_t Offset = take().Offset;
  Expected<Parsed> Operand = parseNot(Depth + 1);
  if (!Operand)
    return Operand;
  if (Error E = needCondition(*Operand))
    return E;
  return Parsed{add({ExprOp::Not, 0, 0, Operand->Node, -1, true}), Offset};
}

static std::optional<ExprOp> compareOp(Tok K) {
  switch (K) {
  case Tok::Lt:
    return ExprOp::Lt;
  case Tok::Le:
    return ExprOp::Le;
  case Tok::Gt:
    return ExprOp::Gt;
  case Tok::Ge:
    return ExprOp::Ge;
  case Tok::EqEq:
    return ExprOp::Eq;
  case Tok::Ne:
    return ExprOp::Ne;
  default:
    return std::nullopt;
  }
}

Expected<Parser::Parsed> Parser::parseCompare(unsigned Depth) {
  Expected<Parsed> L = parseSum(Depth + 1);
  if (!L)
    return L;
  std::optional<ExprOp> Op = compareOp(peek().K);
  if (!Op)
    return L;
  take();
  Expected<Parsed> R = parseSum(Depth + 1);
  if (!R)
    return R;
  if (Error E = needNumber(*L))
    return E;
  if (Error E = needNumber(*R))
    return E;
  if (compareOp(peek().K))
    return errorAt(peek().Offset, "comparisons do not chain; join them with "
                                  "'and'");
  return Parsed{add({*Op, 0, 0, L->Node, R->Node, true}), L->Offset};
}

Expected<Parser::Parsed> Parser::parseSum(unsigned Depth) {
  Expected<Parsed> L = parseProduct(Depth + 1);
  if (!L)
    return L;
  while (peek().K == Tok::Plus || peek().K == Tok::Minus) {
    ExprOp Op = take().K == Tok::Plus ? ExprOp::Add : ExprOp::Sub;
    Expected<Parsed> R = parseProduct(Depth + 1);
    if (!R)
      return R;
    if (Error E = needNumber(*L))
      return E;
    if (Error E = needNumber(*R))
      return E;
    L->Node = add({Op, 0, 0, L->Node, R->Node, false});
  }
  return L;
}

Expected<Parser::Parsed> Parser::parseProduct(unsigned Depth) {
  Expected<Parsed> L = parseUnary(Depth + 1);
  if (!L)
    return L;
  while (peek().K == Tok::Star || peek().K == Tok::Slash) {
    ExprOp Op = take().K == Tok::Star ? ExprOp::Mul : ExprOp::Div;
    Expected<Parsed> R = parseUnary(Depth + 1);
    if (!R)
      return R;
    if (Error E = needNumber(*L))
      return E;
    if (Error E = needNumber(*R))
      return E;
    L->Node = add({Op, 0, 0, L->Node, R->Node, false});
  }
  return L;
}

Expected<Parser::Parsed> Parser::parseUnary(unsigned Depth) {
  if (Depth > MaxDepth)
    return errorAt(peek().Offset, "expression nested too deeply");
  if (peek().K != Tok::Minus)
    return parsePrimary(Depth + 1);
  size_t Offset = take().Offset;
  Expected<Parsed> Operand = parseUnary(Depth + 1);
  if (!Operand)
    return Operand;
  if (Error E = needNumber(*Operand))
    return E;
  return Parsed{add({ExprOp::Neg, 0, 0, Operand->Node, -1, false}), Offset};
}

Expected<Parser::Parsed> Parser::parsePrimary(unsigned Depth) {
  const Token &T = peek();
  switch (T.K) {
  case Tok::Number: {
    take();
    return Parsed{add({ExprOp::Number, T.Num, 0, -1, -1, false}), T.Offset};
  }
  case Tok::LParen: {
    size_t Offset = take().Offset;
    Expected<Parsed> Inner = parseOr(Depth + 1);
    if (!Inner)
      return Inner;
    if (peek().K != Tok::RParen)
      return errorAt(peek().Offset, "expected ')' to close the '(' at column " +
                                        Twine(lineCol(Offset).second) +
                                        ", found " + describe(peek()));
    take();
    Inner->Offset = Offset;
    return Inner;
  }
  case Tok::Ident:
    if (T.Text == "and" || T.Text == "or")
      return errorAt(T.Offset,
                     "expected an expression before '" + T.Text + "'");
    return parseMetric();
  default:
    return errorAt(T.Offset,
                   "expected a number, a metric or '(', found " + describe(T));
  }
}

Expected<std::string> Parser::parseCallArgument(const Token &Callee) {
  take(); // '('
  const Token &Arg = peek();
  if (Arg.K != Tok::String)
    return errorAt(Arg.Offset, Callee.Text +
                                   "(...) takes one string in double quotes, "
                                   "found " +
                                   describe(Arg));
  take();
  if (peek().K != Tok::RParen)
    return errorAt(peek().Offset,
                   "expected ')' after the string, found " + describe(peek()));
  take();
  if (Arg.Str.empty())
    return errorAt(Arg.Offset, "empty string in " + Callee.Text + "(...)");
  return Arg.Str;
}

Expected<Parser::Parsed> Parser::parseMetric() {
  Metric M;
  size_t Start = peek().Offset;
  auto [Line, Col] = lineCol(Start);
  M.Line = Line;
  M.Column = Col;
  bool StageWritten = false;
  if (Error E = parseQualifiers(M, StageWritten))
    return E;
  if (Error E = parseMeasure(M, StageWritten, Start))
    return E;
  if (Error E = parseScope(M))
    return E;
  Out.Metrics.push_back(std::move(M));
  return Parsed{
      add({ExprOp::Metric, 0, unsigned(Out.Metrics.size() - 1), -1, -1, false}),
      Start};
}

/// [side '.'] [stage '.'].
Error Parser::parseQualifiers(Metric &M, bool &StageWritten) {
  auto qualifierNeedsDot = [&](const Token &T) -> Error {
    return errorAt(T.Offset + T.Text.size(),
                   "expected '.' and a metric after '" + T.Text + "'");
  };
  if (isWord(peek(), "base") || isWord(peek(), "head")) {
    const Token &T = take();
    M.Side = T.Text == "base" ? MetricSide::Base : MetricSide::Head;
    M.SideWritten = true;
    if (peek().K != Tok::Dot)
      return qualifierNeedsDot(T);
    take();
  }
  if (isWord(peek(), "ptx") || isWord(peek(), "sass")) {
    const Token &T = take();
    M.Stage = T.Text == "ptx" ? MetricStage::PTX : MetricStage::SASS;
    StageWritten = true;
    if (peek().K != Tok::Dot)
      return qualifierNeedsDot(T);
    take();
  }
  return Error::success();
}

/// The measure: a family, op("...") or family("..."), instructions, other,
/// or a resource of the kernel.
Error Parser::parseMeasure(Metric &M, bool StageWritten, size_t Start) {
  const Token &Name = peek();
  if (Name.K != Tok::Ident)
    return errorAt(Name.Offset, "expected a family, op(\"...\") or a "
                                "resource, found " +
                                    describe(Name));
  take();
  if ((Name.Text == "op" || Name.Text == "family") && peek().K == Tok::LParen)
    return parseCalledMeasure(M, Name, StageWritten);
  if (std::optional<unsigned> F = Families.indexOf(Name.Text)) {
    M.Kind = MetricKind::Family;
    M.Family = *F;
    M.Name = Name.Text.str();
  } else if (Name.Text == "instructions" || Name.Text == "other") {
    M.Kind =
        Name.Text == "other" ? MetricKind::Other : MetricKind::Instructions;
    M.Name = Name.Text.str();
  } else if (const StringRef *R = find(ResourceNames, Name.Text);
             R != std::end(ResourceNames)) {
    M.Kind = MetricKind::Resource;
    M.Res = static_cast<Resource>(R - std::begin(ResourceNames));
    M.Name = Name.Text.str();
    if (StageWritten)
      return errorAt(Start, "'" + Name.Text +
                                "' is a resource of the kernel; it has no "
                                "stage (drop 'ptx.'/'sass.')");
  } else {
    return unknownMeasure(M, Name, StageWritten);
  }
  return Error::success();
}

/// op("...") or family("..."), at the '('.
Error Parser::parseCalledMeasure(Metric &M, const Token &Name,
                                 bool StageWritten) {
  Expected<std::string> Arg = parseCallArgument(Name);
  if (!Arg)
    return Arg.takeError();
  if (Name.Text == "op") {
    M.Name = std::move(*Arg);
    return parseOpcode(M, Name, StageWritten);
  }
  std::optional<unsigned> F = Families.indexOf(*Arg);
  if (!F) {
    SmallVector<StringRef, 16> Ids;
    for (const Family &Fam : Families.families())
      Ids.push_back(Fam.Id);
    return errorAt(Name.Offset,
                   "unknown family '" + *Arg + "'" + suggestion(*Arg, Ids));
  }
  M.Kind = MetricKind::Family;
  M.Family = *F;
  M.Name = std::move(*Arg);
  return Error::success();
}

/// The opcode or opcode pattern of op("...") in M.Name, and its stage.
Error Parser::parseOpcode(Metric &M, const Token &Name, bool StageWritten) {
  M.Kind = MetricKind::Opcode;
  if (StringRef(M.Name).find_first_of("*?[{") != StringRef::npos) {
    // GlobPattern points into its pattern text: keep both together.
    struct Holder {
      std::string Text;
      std::optional<GlobPattern> Glob;
    };
    auto H = std::make_shared<Holder>();
    H->Text = M.Name;
    Expected<GlobPattern> G = GlobPattern::create(H->Text);
    if (!G)
      return errorAt(Name.Offset, "bad opcode pattern \"" + M.Name +
                                      "\": " + toString(G.takeError()));
    H->Glob.emplace(std::move(*G));
    M.Glob = std::shared_ptr<const GlobPattern>(H, &*H->Glob);
  }
  MetricStage Spelled = M.opcodeStage();
  if (StageWritten && Spelled != MetricStage::Default && Spelled != M.Stage)
    return errorAt(Name.Offset,
                   "op(\"" + M.Name + "\") is a " +
                       (Spelled == MetricStage::PTX ? "PTX" : "SASS") +
                       " opcode, but the metric reads " +
                       (M.Stage == MetricStage::PTX ? "ptx" : "sass"));
  return Error::success();
}

/// The error for a word that is no measure, with the nearest one.
Error Parser::unknownMeasure(const Metric &M, const Token &Name,
                             bool StageWritten) {
  std::vector<StringRef> Candidates;
  for (const Family &Fam : Families.families())
    Candidates.push_back(Fam.Id);
  Candidates.insert(Candidates.end(),
                    {"instructions", "other", "op", "family"});
  Candidates.insert(Candidates.end(), std::begin(ResourceNames),
                    std::end(ResourceNames));
  if (!M.SideWritten && !StageWritten)
    Candidates.insert(Candidates.end(), {"base", "head"});
  if (!StageWritten)
    Candidates.insert(Candidates.end(), {"ptx", "sass"});
  std::string What =
      (Name.Text == "base" || Name.Text == "head" || Name.Text == "ptx" ||
       Name.Text == "sass")
          ? ("'" + Name.Text + "' is written once, before the family").str()
          : ("unknown family '" + Name.Text + "'" +
             suggestion(Name.Text, Candidates))
                .str();
  if (Name.Text == "op" || Name.Text == "family")
    What = (Name.Text + " needs a string: " + Name.Text + "(\"...\")").str();
  return errorAt(Name.Offset, What);
}

/// ['.' ('loop' | 'total')].
Error Parser::parseScope(Metric &M) {
  if (peek().K != Tok::Dot)
    return Error::success();
  take();
  const Token &Scope = peek();
  if (Scope.K != Tok::Ident || (Scope.Text != "loop" && Scope.Text != "total"))
    return errorAt(
        Scope.Offset,
        "expected 'loop' or 'total' after '.', found " + describe(Scope) +
            (Scope.K == Tok::Ident ? suggestion(Scope.Text, {"loop", "total"})
                                   : std::string()));
  take();
  if (M.Kind == MetricKind::Resource)
    return errorAt(Scope.Offset, "'" + M.Name +
                                     "' is a resource of the kernel; it "
                                     "has no '." +
                                     Scope.Text + "'");
  M.InLoops = Scope.Text == "loop";
  return Error::success();
}

} // namespace

Expected<Expr> Expr::parse(StringRef Text, const FamilyTable &Families,
                           StringRef SourceName) {
  auto I = std::make_shared<Impl>();
  I->Text = Text.str();
  Parser P(I->Text, Families, SourceName, *I);
  if (Error E = P.run())
    return E;
  return Expr(std::move(I));
}

Expected<Expr> Expr::parseCondition(StringRef Text, const FamilyTable &Families,
                                    StringRef SourceName) {
  Expected<Expr> E = parse(Text, Families, SourceName);
  if (!E)
    return E;
  if (!E->isCondition()) {
    auto [Line, Col] = lineColOf(Text, Text.find_first_not_of(" \t\r\n"));
    return inputError(SourceName, Line, Col,
                      "expected a condition (a comparison such as "
                      "'head.staging.loop > base.staging.loop'), found a "
                      "number");
  }
  return E;
}

} // namespace gestell
