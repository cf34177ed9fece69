//===- ExprImpl.h - The parsed form of a metric expression ----------------===//
//
// Private to the SDK: ExprParser.cpp builds it, Expr.cpp prints and
// evaluates it. Nodes live in one vector and refer to their operands by
// index; the root is the last node made.
//
//===----------------------------------------------------------------------===//
#ifndef GESTELL_LIB_EXPRIMPL_H
#define GESTELL_LIB_EXPRIMPL_H

#include "gestell/Expr.h"

#include <string>
#include <vector>

namespace gestell {

enum class ExprOp : uint8_t {
  Number,
  Metric,
  Neg,
  Add,
  Sub,
  Mul,
  Div,
  Lt,
  Le,
  Gt,
  Ge,
  Eq,
  Ne,
  And,
  Or,
  Not,
};

struct ExprNode {
  ExprOp Op = ExprOp::Number;
  double Num = 0;      ///< Number
  unsigned Metric = 0; ///< Metric: index into Impl::Metrics
  int L = -1, R = -1;  ///< operands (unary ops use L)
  bool IsCondition = false;
};

struct Expr::Impl {
  std::string Text;
  std::vector<ExprNode> Nodes;
  std::vector<Metric> Metrics;
  int Root = -1;
};

/// Binding strength, for printing: or 1, and 2, not 3, comparisons 4,
/// + - 5, * / 6, unary minus 7, numbers and metrics 8.
unsigned exprPrecedence(ExprOp Op);
/// The operator's spelling ("<=", "and", ...); "" for Number and Metric.
llvm::StringRef exprOpSpelling(ExprOp Op);

} // namespace gestell

#endif
