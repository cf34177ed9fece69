//===- Stats.h - What gestell stats learns about one kernel ---------------===//
//
// The verb (Stats.cpp) fills one KernelStats per kernel on a worker thread,
// from a KernelView that is released right after; the writers
// (StatsText.cpp, StatsJson.cpp) print them in discovery order. Everything
// here owns its data, nothing points into a parsed file.
//
//===----------------------------------------------------------------------===//
#ifndef GESTELL_DRIVER_STATS_H
#define GESTELL_DRIVER_STATS_H

#include "gestell/Bundle.h"
#include "gestell/Cubin.h"
#include "gestell/Families.h"
#include "gestell/InstructionCounts.h"
#include "gestell/KernelMetrics.h"
#include "gestell/TtgirReport.h"

#include "llvm/Support/raw_ostream.h"

#include <optional>
#include <string>
#include <vector>

namespace gestell::driver {

/// A kernel and what the SDK collected of it (gestell/KernelMetrics.h:
/// resources, PTX and SASS counts, missing stages, problems).
struct KernelStats : KernelMetrics {
  const Kernel *K = nullptr;
  /// Layout conversions and loops of the .ttgir, when there is one.
  std::optional<TtgirReport> Ttgir;
};

struct StatsOutputOptions {
  unsigned TopOpcodes = 10; ///< text: opcodes listed per stage (0 = all)
};

/// Writes a report incrementally: begin(), then add() for each kernel in
/// order, then end(). Output depends only on what is added, never on timing.
class StatsWriter {
public:
  virtual ~StatsWriter() = default;
  virtual void begin(const FamilyTable &Families) = 0;
  virtual void add(const KernelStats &S) = 0;
  /// Problems with the given paths themselves, then the end of the report.
  virtual void end(llvm::ArrayRef<DiscoveryProblem> PathProblems) = 0;
};

std::unique_ptr<StatsWriter> makeTextStatsWriter(llvm::raw_ostream &OS,
                                                 StatsOutputOptions Opts);
std::unique_ptr<StatsWriter> makeJsonStatsWriter(llvm::raw_ostream &OS);

} // namespace gestell::driver

#endif
