//===- StagingExplosionCheck.h - nvidia-staging-explosion -----------------===//
//
// Register fragments moved through shared memory (LDSM / STSM and the LDS
// that read a round trip back), the CTA barriers such round trips need, and
// warp shuffles, counted in the loops of the SASS and set against the
// tensor-core work of the same loops:
//   - alone: a loop whose warp-group / tcgen05 MMAs come with more staging
//     or barriers per MMA than the thresholds;
//   - with --baseline: staging, barriers or shuffles in loops that grew by a
//     factor (and by an absolute minimum) while the tensor-core count held.
// One warning per kernel, with a note per metric (value and threshold) and
// the PTX as related evidence. docs/checks/nvidia-staging-explosion.md
// has the calibration on the fixtures.
//
//===----------------------------------------------------------------------===//
#ifndef GESTELL_PLUGINS_NVIDIA_STAGINGEXPLOSIONCHECK_H
#define GESTELL_PLUGINS_NVIDIA_STAGINGEXPLOSIONCHECK_H

#include "gestell/Check.h"

namespace gestell::nvidia {

class StagingExplosionCheck : public Check {
public:
  static CheckInfo info();
  StagingExplosionCheck(llvm::StringRef Name, CheckContext &Context);
  void storeOptions(OptionMap &Opts) const override;
  llvm::Error check(CheckInput &In) override;

private:
  /// Without a baseline: staging instructions (LDSM, STSM, LDS) per
  /// asynchronous MMA in a loop above which the check fires.
  const double StagingPerMma;
  /// Without a baseline: CTA barriers per asynchronous MMA in a loop.
  const double BarriersPerMma;
  /// Without a baseline, loops with fewer asynchronous MMAs are not judged.
  const unsigned MinMma;
  /// With a baseline: a metric fires when it is at least GrowthFactor times
  /// the baseline's and at least MinGrowth instructions more.
  const double GrowthFactor;
  const unsigned MinGrowth;
  /// With a baseline: the tensor-core count in loops "holds" when it moved
  /// by at most this fraction of the baseline's.
  const double TensorTolerance;
};

} // namespace gestell::nvidia

#endif
