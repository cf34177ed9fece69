//===- StagingExplosionCheck.h - nvidia-staging-explosion -----------------===//
//
// Register fragments moved through shared memory (LDSM / STSM and the
// LDS/STS of a round trip), the CTA barriers such round trips need, and warp
// shuffles, in the executed SASS of a kernel's loops:
//   - alone: the innermost loop holding the MMAs (the k-loop) carries, by
//     its line info, the shared-memory traffic of a ttg.convert_layout that
//     the SDK's redundancy analysis calls avoidable (findRedundantConversions)
//     and whose cost is shared memory: a warning whose cause is that
//     conversion, so it merges as evidence into
//     triton-redundant-layout-conversion's finding. A needed conversion
//     with that cost is a remark. Once-per-tile work (an epilogue outside
//     the k-loop), load-pipeline barriers and reads of buffers TMA or
//     cp.async filled are not conversions and are never counted alone;
//   - with --baseline: staging, barriers or shuffles in loops that grew by a
//     factor (and by an absolute minimum) while the tensor-core count held.
// docs/checks/nvidia-staging-explosion.md.
//
//===----------------------------------------------------------------------===//
#ifndef GESTELL_PLUGINS_NVIDIA_STAGINGEXPLOSIONCHECK_H
#define GESTELL_PLUGINS_NVIDIA_STAGINGEXPLOSIONCHECK_H

#include "gestell/Check.h"
#include "gestell/Sass.h"

namespace gestell::nvidia {

class StagingExplosionCheck : public Check {
public:
  static CheckInfo info();
  StagingExplosionCheck(llvm::StringRef Name, CheckContext &Context);
  void storeOptions(OptionMap &Opts) const override;
  llvm::Error check(CheckInput &In) override;

private:
  /// Without a baseline: the k-loop's conversions (see above).
  llvm::Error alone(CheckInput &In, const SassModule &Sass,
                    const SassFunction &SF);
  /// One conversion's shared-memory traffic in one k-loop (the .cpp
  /// defines it), reported by alone().
  struct LoopTraffic;
  void reportLoopTraffic(const LoopTraffic &T);
  /// With a baseline: the metrics that grew while the tensor-core work held.
  struct Growth;
  Growth measureGrowth(CheckInput &In, const SassModule &Sass,
                       const SassFunction &SF, const SassModule &BaseSass,
                       const SassFunction &BaseSF) const;
  void reportGrowth(CheckInput &In, const SassModule &Sass,
                    const SassFunction &SF, const Growth &G);
  /// With a baseline: a metric fires when it is at least GrowthFactor times
  /// the baseline's and at least MinGrowth instructions more.
  const double GrowthFactor;
  const unsigned MinGrowth;
  /// With a baseline: the tensor-core count in loops "holds" when it moved
  /// by at most this fraction of the baseline's.
  const double TensorTolerance;
  /// Report a needed conversion whose shared-memory traffic is in the
  /// k-loop as a remark.
  const bool Remarks;
};

} // namespace gestell::nvidia

#endif
