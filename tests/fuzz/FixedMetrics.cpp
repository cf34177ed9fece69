//===- FixedMetrics.cpp - Metric values that depend only on the metric ----===//
#include "FixedMetrics.h"
#include "FuzzSupport.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/xxhash.h"

#include <cmath>

using namespace llvm;

namespace gestell::fuzz {

MetricValue FixedMetrics::value(const Metric &M) const {
  uint64_t H = xxh3_64bits(M.str());
  switch (H % 8) {
  case 0:
    return MetricValue::unknown("no value for " + M.str());
  case 1:
    return MetricValue::known(0);
  case 2:
    return MetricValue::known(double(H % 1000) / 8); // not a whole number
  default:
    return MetricValue::known(double(H % 100000));
  }
}

static bool sameNumber(std::optional<double> A, std::optional<double> B) {
  if (!A || !B)
    return !A && !B;
  return *A == *B || (std::isnan(*A) && std::isnan(*B));
}

void expectSameResult(const ExprResult &A, const ExprResult &B,
                      StringRef Text) {
  if (A.T != B.T || !sameNumber(A.Number, B.Number))
    fail("'" + Text + "' evaluates differently once printed and read back");
}

} // namespace gestell::fuzz
