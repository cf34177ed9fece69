//===- TraceStore.h - The traces this process read, and their stages ------===//
//
// Internal to the SDK. Discovery registers each trace it reads with where
// its compilation events are (registerTrace); openArtifact() asks
// openTraceStage() first, which serves a stage label ("TRACE:LINE: FILE")
// from the event, read again from the trace unless a window holds it
// (forEachTraceWindow). Nothing here holds an event's text longer than a
// parse of one of its stages, or a window, needs it.
//
//===----------------------------------------------------------------------===//
#ifndef GESTELL_LIB_TRACESTORE_H
#define GESTELL_LIB_TRACESTORE_H

#include "gestell/Bundle.h"
#include "gestell/Input.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"
#include "llvm/Support/MemoryBuffer.h"

#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

namespace gestell::trace {

/// A compilation event as discovery found it.
struct IndexedEvent {
  unsigned Line = 0;
  uint64_t Offset = 0, Length = 0;
  std::string Hash; ///< to tell that a re-read found the same event
};

/// Makes the stages of Events (of the trace file Trace) readable through
/// openArtifact; a trace read again replaces what was registered.
void registerTrace(llvm::StringRef Trace, std::vector<IndexedEvent> Events);

/// openArtifact's first step: nullopt when Path is not the label of a stage
/// of a registered trace, else the stage's text or why it cannot be read.
std::optional<llvm::Expected<std::unique_ptr<llvm::MemoryBuffer>>>
openTraceStage(llvm::StringRef Path, Content Kind);

/// The metadata hash of a compilation event line, found without parsing it
/// (the first "hash" key after "metadata", 64 hex digits), or "". Only to
/// skip, unparsed, the repeat of a kernel already read: the parsed output
/// of a run (events five times the raw log's) repeats every compilation of
/// its raw log, and llvm::json builds every object of its source mappings.
llvm::StringRef repeatCandidateHash(llvm::StringRef Line);

/// Folders a trace's cubin may be read from (real paths).
struct Trust {
  std::vector<std::string> Roots;  ///< the scanned folders
  std::vector<std::string> Caches; ///< --trace-cache
};

/// A trace to read: named on the command line, or found in a scanned
/// folder (where a project's own .ndjson files, logs or datasets, are too).
struct TraceFile {
  std::string Path;
  bool Named = false;
};

/// Reads the traces (in the order given) into kernels appended to Out, one
/// per compilation event whose metadata hash is not in Seen (added to it);
/// a malformed event is an error in Problems at its line, and the next
/// lines are still read. A trace found in a folder whose first event does
/// not read as TritonParse's is not a trace: a remark says it was skipped.
void scanTraces(llvm::ArrayRef<TraceFile> Traces, const Trust &T,
                std::set<std::string> &Seen, std::vector<Kernel> &Out,
                std::vector<DiscoveryProblem> &Problems);

} // namespace gestell::trace

#endif
