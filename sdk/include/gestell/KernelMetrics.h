//===- gestell/KernelMetrics.h - What is counted of one kernel ------------===//
//
// The per-kernel numbers that `gestell stats` prints, `gestell diff`
// compares and the metric expressions (gestell/Expr.h) read: cubin
// resources, dynamic shared memory, and PTX and SASS instruction counts by
// family and opcode, in total and in loops (gestell/InstructionCounts.h).
// Everything is owned, so the kernel's parses can be released once the
// metrics are collected.
//
// KernelMetricProvider answers Expr metrics from a head kernel's metrics and,
// when there is one, its baseline's.
//
//===----------------------------------------------------------------------===//
#ifndef GESTELL_KERNELMETRICS_H
#define GESTELL_KERNELMETRICS_H

#include "gestell/Cubin.h"
#include "gestell/InstructionCounts.h"
#include "gestell/KernelView.h"
#include "gestell/Metric.h"
#include "gestell/Occupancy.h"

#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace gestell {

struct KernelMetrics {
  std::optional<CubinKernel> Resources; ///< the cubin's entry of this kernel
  std::string CubinTarget;              ///< "sm_90a" (resolveArch)
  std::optional<int64_t> SharedDynamic; ///< metadata `shared`, bytes
  std::optional<StageCounts> Ptx, Sass;
  std::string SassFile; ///< where the SASS was read (bundle or tool cache)
  /// Stages (json, cubin, ptx, sass) it could not get, by name, and why.
  std::vector<std::pair<std::string, std::string>> Missing;
  /// Files that could not be read ("file:line:col: message") and the
  /// kernel's discovery notes.
  std::vector<std::string> Problems;
  /// What the readers noted without failing (KernelView::readerNotes).
  std::vector<std::string> Notes;
  /// Blocks per SM and launchability on the analysis's device (the cubin's
  /// own capability unless AnalysisOptions::Device), or why unknown.
  KernelOccupancy Occupancy;

  /// The counts of one stage (Isa::PTX or Isa::SASS), or null.
  const StageCounts *counts(Isa I) const {
    return I == Isa::PTX ? (Ptx ? &*Ptx : nullptr) : (Sass ? &*Sass : nullptr);
  }
  /// Why a stage ("ptx", "sass", "cubin", "json") is absent, or "".
  std::string whyMissing(llvm::StringRef StageName) const;
};

/// The architecture a kernel was compiled for, with its suffix: "sm_90a".
/// CUDA 13's ptxas writes the same ELF flags for sm_90 and sm_90a, so a
/// cubin without the arch-specific flag does not say which: then the PTX
/// `.target` decides, else a Triton .json target of 90 or more (Triton
/// always compiles those for the `a` variant), else the plain arch with
/// SuffixUnknown set. Cubins below sm_90 have no `a` variant.
struct ArchResolution {
  std::string Arch; ///< "sm_90a", "sm_80", or "" without a cubin
  std::string From; ///< "cubin", "ptx", "json" (where the suffix came from)
  bool SuffixUnknown = false;
};
ArchResolution resolveArch(const CubinInfo &C, llvm::StringRef PtxTarget,
                           const KernelMetadata *Meta);
/// The same for kernel K, whose cubin C is: K's .ptx is opened for its
/// `.target` (readPtxTarget) only when C's flags leave the suffix open.
ArchResolution resolveArch(const CubinInfo &C, const Kernel &K);

/// Which stages collectKernelMetrics reads. A stage not asked for is not
/// opened: its counts stay null and it is not listed as missing.
struct MetricStages {
  bool Ptx = true;
  bool Sass = true;
  /// The metadata and the cubin (resources, occupancy, the cubin's target)
  /// and the kernel's discovery notes: off only to add the counts to
  /// metrics made without them.
  bool Resources = true;
};

/// Reads the metadata, cubin, PTX and SASS of V's kernel (as present and
/// asked for) and counts them with Families. Missing stages and unreadable
/// files are recorded in the result, never fatal. Does not release V.
/// A resource of the kernel (registers, stack, ... from the cubin; dynamic
/// shared memory from the metadata), or nullopt when unknown.
std::optional<double> resourceValue(const KernelMetrics &K, Resource R);

KernelMetrics collectKernelMetrics(KernelView &V, const FamilyTable &Families,
                                   MetricStages Stages = {});

/// The stage a metric without `ptx.`/`sass.` reads: SASS when every kernel
/// given has SASS counts, else PTX when every one has PTX counts, else SASS
/// when the first has SASS, else PTX. (Base and head then read the same
/// stage whenever they can.)
Isa defaultMetricStage(const KernelMetrics &Head,
                       const KernelMetrics *Base = nullptr);

/// Answers metrics of expressions parsed with the FamilyTable the metrics
/// were counted with. `base.` metrics are unknown when Base is null.
class KernelMetricProvider : public MetricProvider {
public:
  KernelMetricProvider(const KernelMetrics &Head, const KernelMetrics *Base,
                       llvm::StringRef KernelName)
      : Head(Head), Base(Base), KernelName(KernelName.str()) {}
  MetricValue value(const Metric &M) const override;

private:
  const KernelMetrics &Head;
  const KernelMetrics *Base;
  std::string KernelName;
};

} // namespace gestell

#endif
