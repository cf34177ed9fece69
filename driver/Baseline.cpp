//===- Baseline.cpp - Which baseline kernel a kernel is compared with -----===//
#include "Baseline.h"

using namespace llvm;

namespace gestell::driver {

namespace {
bool sameKey(const Kernel &A, const Kernel &B) {
  if (A.Name != B.Name || A.target() != B.target())
    return false;
  if (A.Meta.has_value() != B.Meta.has_value())
    return false;
  if (A.Meta)
    return A.Meta->NumWarps == B.Meta->NumWarps &&
           A.Meta->NumStages == B.Meta->NumStages;
  return true;
}
} // namespace

const Kernel *matchBaselineKernel(const Kernel &K, ArrayRef<Kernel> Baseline) {
  const Kernel *Found = nullptr;
  for (const Kernel &B : Baseline) {
    if (!sameKey(K, B))
      continue;
    if (Found)
      return nullptr; // ambiguous: do not guess
    Found = &B;
  }
  return Found;
}

} // namespace gestell::driver
