//===- Expr.cpp - Printing and evaluating metric expressions --------------===//
//
// Evaluation is three-valued (see gestell/Expr.h): a value is a number, a
// truth value, or unknown with the first reason it became unknown. Every
// metric is asked of the provider once, in text order, and recorded in
// ExprResult::Used so reports can show what the gate saw.
//
//===----------------------------------------------------------------------===//
#include "ExprImpl.h"

#include "gestell/Error.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/Support/GlobPattern.h"
#include "llvm/Support/raw_ostream.h"

#include <charconv>
#include <cmath>

using namespace llvm;

namespace gestell {

unsigned exprPrecedence(ExprOp Op) {
  switch (Op) {
  case ExprOp::Or:
    return 1;
  case ExprOp::And:
    return 2;
  case ExprOp::Not:
    return 3;
  case ExprOp::Lt:
  case ExprOp::Le:
  case ExprOp::Gt:
  case ExprOp::Ge:
  case ExprOp::Eq:
  case ExprOp::Ne:
    return 4;
  case ExprOp::Add:
  case ExprOp::Sub:
    return 5;
  case ExprOp::Mul:
  case ExprOp::Div:
    return 6;
  case ExprOp::Neg:
    return 7;
  case ExprOp::Number:
  case ExprOp::Metric:
    return 8;
  }
  return 8;
}

StringRef exprOpSpelling(ExprOp Op) {
  switch (Op) {
  case ExprOp::Or:
    return "or";
  case ExprOp::And:
    return "and";
  case ExprOp::Not:
    return "not";
  case ExprOp::Lt:
    return "<";
  case ExprOp::Le:
    return "<=";
  case ExprOp::Gt:
    return ">";
  case ExprOp::Ge:
    return ">=";
  case ExprOp::Eq:
    return "==";
  case ExprOp::Ne:
    return "!=";
  case ExprOp::Add:
    return "+";
  case ExprOp::Sub:
    return "-";
  case ExprOp::Mul:
    return "*";
  case ExprOp::Div:
    return "/";
  case ExprOp::Neg:
    return "-";
  case ExprOp::Number:
  case ExprOp::Metric:
    return "";
  }
  return "";
}

bool Expr::isCondition() const { return I->Nodes[I->Root].IsCondition; }
ArrayRef<Metric> Expr::metrics() const { return I->Metrics; }
StringRef Expr::text() const { return I->Text; }

bool Expr::usesBase() const {
  return any_of(I->Metrics,
                [](const Metric &M) { return M.Side == MetricSide::Base; });
}

/// The shortest text that reads back as V, in the grammar's NUMBER form
/// (digits with an optional fraction, never an exponent: 9e15 prints as
/// 9000000000000000). Literals are never negative (`-` is an operator).
static std::string formatNumber(double V) {
  if (V == std::floor(V) && std::fabs(V) < 1e15)
    return std::to_string(static_cast<int64_t>(V));
  // Fixed notation of a double takes at most 309 integer digits or 1074
  // fraction digits.
  char Buf[1100];
  auto R = std::to_chars(Buf, Buf + sizeof(Buf), V, std::chars_format::fixed);
  return std::string(Buf, R.ptr);
}

static void print(const Expr::Impl &I, int N, raw_ostream &OS) {
  const ExprNode &Node = I.Nodes[N];
  unsigned Prec = exprPrecedence(Node.Op);
  auto child = [&](int C, unsigned MinPrec) {
    bool Paren = exprPrecedence(I.Nodes[C].Op) < MinPrec;
    if (Paren)
      OS << '(';
    print(I, C, OS);
    if (Paren)
      OS << ')';
  };
  switch (Node.Op) {
  case ExprOp::Number:
    OS << formatNumber(Node.Num);
    return;
  case ExprOp::Metric:
    OS << I.Metrics[Node.Metric].str();
    return;
  case ExprOp::Neg:
    OS << '-';
    child(Node.L, Prec);
    return;
  case ExprOp::Not:
    OS << "not ";
    child(Node.L, Prec);
    return;
  default:
    break;
  }
  bool Compare = Prec == 4;
  // Left-associative: the left operand may bind as loosely as the operator,
  // the right one must bind tighter. Comparisons take arithmetic on both.
  child(Node.L, Compare ? Prec + 1 : Prec);
  OS << ' ' << exprOpSpelling(Node.Op) << ' ';
  child(Node.R, Prec + 1);
}

std::string Expr::str() const {
  std::string S;
  raw_string_ostream OS(S);
  print(*I, I->Root, OS);
  return S;
}

namespace {
struct Val {
  enum class K : uint8_t { Num, Bool, Unknown } Kind = K::Unknown;
  double N = 0;
  bool B = false;
  std::string Why;
  static Val num(double V) { return {K::Num, V, false, ""}; }
  static Val boolean(bool V) { return {K::Bool, 0, V, ""}; }
  static Val unknown(std::string Why) {
    return {K::Unknown, 0, false, std::move(Why)};
  }
};

class Evaluator {
public:
  Evaluator(const Expr::Impl &I, const MetricProvider &P, ExprResult &R)
      : I(I), P(P), R(R) {}

  /// Asks the provider for every metric once, in text order; UsedOf maps
  /// each metric of the expression to its entry of R.Used.
  void readMetrics() {
    StringMap<size_t> Seen;
    for (const Metric &M : I.Metrics) {
      auto [It, New] = Seen.try_emplace(M.str(), R.Used.size());
      if (New)
        R.Used.push_back({It->first().str(), P.value(M)});
      UsedOf.push_back(It->second);
    }
  }

  Val eval(int N) {
    const ExprNode &Node = I.Nodes[N];
    switch (Node.Op) {
    case ExprOp::Number:
      return Val::num(Node.Num);
    case ExprOp::Metric: {
      const auto &[Name, V] = R.Used[UsedOf[Node.Metric]];
      if (V.Value)
        return Val::num(*V.Value);
      return Val::unknown(Name + ": " +
                          (V.WhyUnknown.empty() ? "unknown" : V.WhyUnknown));
    }
    case ExprOp::Neg: {
      Val A = eval(Node.L);
      return A.Kind == Val::K::Num ? Val::num(-A.N) : A;
    }
    case ExprOp::Not: {
      Val A = eval(Node.L);
      return A.Kind == Val::K::Bool ? Val::boolean(!A.B) : A;
    }
    case ExprOp::And:
    case ExprOp::Or: {
      Val A = eval(Node.L), B = eval(Node.R);
      bool IsAnd = Node.Op == ExprOp::And;
      // A decisive side decides even when the other is unknown.
      for (const Val *V : {&A, &B})
        if (V->Kind == Val::K::Bool && V->B != IsAnd)
          return Val::boolean(!IsAnd);
      if (A.Kind == Val::K::Unknown)
        return A;
      if (B.Kind == Val::K::Unknown)
        return B;
      return Val::boolean(IsAnd);
    }
    default:
      break;
    }
    Val A = eval(Node.L), B = eval(Node.R);
    if (A.Kind == Val::K::Unknown)
      return A;
    if (B.Kind == Val::K::Unknown)
      return B;
    switch (Node.Op) {
    case ExprOp::Add:
      return Val::num(A.N + B.N);
    case ExprOp::Sub:
      return Val::num(A.N - B.N);
    case ExprOp::Mul:
      return Val::num(A.N * B.N);
    case ExprOp::Div:
      if (B.N == 0)
        return Val::unknown("division by zero");
      return Val::num(A.N / B.N);
    case ExprOp::Lt:
      return Val::boolean(A.N < B.N);
    case ExprOp::Le:
      return Val::boolean(A.N <= B.N);
    case ExprOp::Gt:
      return Val::boolean(A.N > B.N);
    case ExprOp::Ge:
      return Val::boolean(A.N >= B.N);
    case ExprOp::Eq:
      return Val::boolean(A.N == B.N);
    case ExprOp::Ne:
      return Val::boolean(A.N != B.N);
    default:
      return Val::unknown("internal error: bad expression node");
    }
  }

private:
  const Expr::Impl &I;
  const MetricProvider &P;
  ExprResult &R;
  std::vector<size_t> UsedOf; ///< per I.Metrics
};
} // namespace

ExprResult Expr::evaluate(const MetricProvider &P) const {
  ExprResult R;
  Evaluator E(*I, P, R);
  E.readMetrics();
  Val V = E.eval(I->Root);
  switch (V.Kind) {
  case Val::K::Num:
    R.Number = V.N;
    R.T = ExprResult::Truth::Unknown;
    break;
  case Val::K::Bool:
    R.T = V.B ? ExprResult::Truth::True : ExprResult::Truth::False;
    break;
  case Val::K::Unknown:
    R.T = ExprResult::Truth::Unknown;
    R.WhyUnknown = std::move(V.Why);
    break;
  }
  return R;
}

void printExprError(raw_ostream &OS, Error E, StringRef Text) {
  handleAllErrors(
      std::move(E),
      [&](const InputError &IE) {
        OS << IE.Path;
        if (IE.Line)
          OS << ':' << IE.Line << ':' << IE.Column;
        OS << ": error: " << IE.Message << "\n";
        if (!IE.Line || !IE.Column)
          return;
        SmallVector<StringRef, 4> Lines;
        Text.split(Lines, '\n');
        if (IE.Line > Lines.size())
          return;
        StringRef L = Lines[IE.Line - 1].rtrim('\r');
        OS << L << "\n";
        std::string Caret;
        for (unsigned I = 0; I + 1 < IE.Column && I < L.size(); ++I)
          Caret += L[I] == '\t' ? '\t' : ' ';
        OS << Caret << "^\n";
      },
      [&](const ErrorInfoBase &EI) {
        OS << "error: " << EI.message() << "\n";
      });
}

} // namespace gestell
