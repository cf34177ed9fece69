//===- FixedMetrics.h - Metric values that depend only on the metric ------===//
//
// A MetricProvider for the expression and rule-pack targets: every metric
// has a value made from its canonical spelling (so an expression and its
// printed form read the same values), some of them unknown, some not whole
// numbers, so unknown propagation and rounding are exercised too.
//
//===----------------------------------------------------------------------===//
#ifndef GESTELL_TESTS_FUZZ_FIXEDMETRICS_H
#define GESTELL_TESTS_FUZZ_FIXEDMETRICS_H

#include "gestell/Expr.h"

namespace gestell::fuzz {

class FixedMetrics : public MetricProvider {
public:
  MetricValue value(const Metric &M) const override;
};

/// Aborts unless A and B are the same result (value and truth; the
/// reasons may differ in wording).
void expectSameResult(const ExprResult &A, const ExprResult &B,
                      llvm::StringRef Text);

} // namespace gestell::fuzz

#endif
