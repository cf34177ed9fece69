//===- FindingsBaseline.h - Fail only on findings that are new ------------===//
//
// Adopting gestell on an existing codebase: record today's findings once,
//     gestell check --write-findings-baseline=gestell-baseline.json PATH
// commit the file, and from then on
//     gestell check --findings-baseline=gestell-baseline.json PATH
// reports only the findings that are not in it as new (SARIF baselineState
// "new"; those in it are "unchanged"), and only new findings count toward
// the exit status, --warnings-as-errors included. (PHPStan's and detekt's
// baselines; not --baseline, which is a baseline *build*: Baseline.h.)
//
// A finding is known by its line-independent fingerprint (check id, kernel
// name, target, normalized context: gestell::fingerprint, the SARIF
// partialFingerprints entry), with a count, so two equal findings are two
// and a third one is new. Suppressed findings are not recorded.
//
//===----------------------------------------------------------------------===//
#ifndef GESTELL_DRIVER_FINDINGSBASELINE_H
#define GESTELL_DRIVER_FINDINGSBASELINE_H

#include "Runner.h"

#include "llvm/Support/Error.h"

#include <map>
#include <string>

namespace gestell::driver {

struct FindingsBaseline {
  std::string Path;
  /// Fingerprint -> how many findings have it.
  std::map<std::string, unsigned> Counts;
};

/// Writes the findings of R (neither suppressed nor absent) to Path,
/// atomically. False (said on stderr) when it could not be written.
bool writeFindingsBaseline(llvm::StringRef Path, const RunReport &R);

/// Reads a file writeFindingsBaseline wrote; errors are located.
llvm::Expected<FindingsBaseline> readFindingsBaseline(llvm::StringRef Path);

/// Marks each result of R found in B (Result::InFindingsBaseline), in
/// report order, each recorded finding used once. BaselineState becomes
/// "new" or "unchanged"; with a baseline build too (--baseline), a result
/// is new only when it is new under both. Returns how many recorded
/// findings no result used (fixed since, or in another --shard).
unsigned applyFindingsBaseline(RunReport &R, const FindingsBaseline &B);

} // namespace gestell::driver

#endif
