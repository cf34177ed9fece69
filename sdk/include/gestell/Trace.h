//===- gestell/Trace.h - TritonParse traces as kernels --------------------===//
//
// TritonParse (meta-pytorch) records compilations as NDJSON: one JSON event
// per line, `.ndjson` or gzip-compressed `.ndjson.gz`, raw logs and parsed
// (`*_mapped.ndjson.gz`) output alike. Each `compilation` event is a kernel:
// its stages are the texts of `payload.file_content` (keyed by file name:
// add_kernel.ttgir, .ptx, .sass, ...), its metadata `payload.metadata`, its
// cubin the file `payload.file_path` names, read only when it lies inside a
// scanned folder or a --trace-cache folder. Other events (launch, ...) are
// skipped.
//
// A trace can be gigabytes, so it is read as a stream and never held whole:
// discovery reads it once, one line at a time, and keeps of each event only
// where it is (TraceEventRef) and its metadata; a stage is read again from
// the event when a check or count asks for it (openArtifact serves the
// stage's label), and the verbs hold the events of a bounded window of
// kernels at a time (forEachTraceWindow).
//
// A stage of a trace has no file of its own. Its path, everywhere a path
// is printed, is a label: "TRACE:LINE: FILE" (the trace file, the line of
// its event, the stage's file name in the event), so a text location reads
// "trace.ndjson:17: add_kernel.ttgir:42:3: warning: ...". tracePlace()
// splits a label again (SARIF puts the trace file and event line in the
// region and the stage file and line in the location's message).
//
//===----------------------------------------------------------------------===//
#ifndef GESTELL_TRACE_H
#define GESTELL_TRACE_H

#include "gestell/Bundle.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/STLFunctionalExtras.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace gestell {

/// Longest event line read; a longer line is an error at its line, and the
/// lines after it are still read.
inline constexpr uint64_t MaxTraceEventBytes = 256ull << 20;

/// What the verbs hold in memory at a time (forEachTraceWindow): the events
/// of at most this many kernels, and at most this many bytes of them.
inline constexpr uint64_t TraceWindowBytes = 64ull << 20;
inline constexpr size_t TraceWindowKernels = 64;

/// Whether a file name is a TritonParse trace's: it ends in .ndjson or
/// .ndjson.gz.
bool isTraceFileName(llvm::StringRef Name);

/// Reads a trace one line at a time: plain text, or gzip when the data
/// starts with gzip's magic bytes (whatever the name), several members
/// concatenated included. Memory holds one line and one buffer of input.
class TraceLineReader {
public:
  /// Opens Path, which must be a regular file.
  static llvm::Expected<std::unique_ptr<TraceLineReader>>
  open(llvm::StringRef Path);
  /// Reads Data, which the caller keeps alive; Name is used in errors.
  static std::unique_ptr<TraceLineReader> fromMemory(llvm::StringRef Data,
                                                     llvm::StringRef Name);
  ~TraceLineReader();

  enum class Status {
    Line,    ///< line() holds the next line (without its "\n" or "\r\n")
    TooLong, ///< a line longer than MaxTraceEventBytes, skipped
    End,     ///< no more lines
    Failed,  ///< unreadable input (takeError); nothing more is read
  };
  Status next();
  /// The line next() returned; valid until the next call.
  llvm::StringRef line() const;
  /// 1-based number of that line, and its offset and length (with its line
  /// ending) in the uncompressed stream.
  unsigned lineNumber() const;
  uint64_t lineOffset() const;
  uint64_t lineLength() const;
  bool isGzip() const;
  /// After Status::Failed: an InputError at the line being read ("corrupt
  /// gzip data", "truncated gzip data", a read error).
  llvm::Error takeError();
  /// Makes the next line the one at Offset of the uncompressed stream, which
  /// is line number Line: a plain file seeks; gzip reads forward, from the
  /// start when Offset is behind.
  llvm::Error seekTo(uint64_t Offset, unsigned Line);

  class Impl;

private:
  explicit TraceLineReader(std::unique_ptr<Impl> I);
  std::unique_ptr<Impl> P;
};

/// One event of a trace, as far as gestell reads it.
struct TraceEvent {
  std::string Type; ///< event_type: "compilation", "launch", ...
  /// The line was not JSON gestell reads (NaN, say, which Python writes)
  /// but names an event type other than "compilation": skipped as such.
  bool Unparsed = false;
  // Compilation events only:
  std::string Name; ///< the kernel: metadata name, else a stage file's stem
  std::string Hash; ///< metadata hash ("" when none)
  std::optional<KernelMetadata> Meta; ///< payload.metadata
  struct File {
    std::string Name; ///< the key: "add_kernel.ttgir"
    std::string Text; ///< the text, when it was asked for
  };
  std::vector<File> Files; ///< payload.file_content, sorted by name
  /// payload.file_path's .cubin entry (the kernel's, else the first); as the
  /// trace says, never opened here.
  std::string CubinPath;
};

/// Parses one line of a trace (line number LineNo of the file Trace). Texts
/// of payload.file_content are kept for the files KeepText accepts (all of
/// them when it is null). Errors are InputErrors at Trace:LineNo (and the
/// column of a JSON syntax error): not JSON, not an object, no event_type,
/// a compilation event without payload.file_content or with a text that is
/// not a string.
llvm::Expected<TraceEvent>
parseTraceEvent(llvm::StringRef Line, llvm::StringRef Trace, unsigned LineNo,
                llvm::function_ref<bool(llvm::StringRef)> KeepText = nullptr);

/// The label of a trace's event ("TRACE:LINE") or of a stage in it
/// ("TRACE:LINE: FILE").
std::string traceLabel(llvm::StringRef Trace, unsigned Line,
                       llvm::StringRef StageFile = "");

/// What a label names.
struct TracePlace {
  std::string Trace; ///< the trace file
  unsigned EventLine = 0;
  std::string StageFile; ///< "" for the event as a whole
};
/// Splits Path when it is a label of a trace this process read (a path
/// that merely looks like one is not); nullopt otherwise.
std::optional<TracePlace> tracePlace(llvm::StringRef Path);

/// Runs Body(Begin, End) over consecutive ranges of Kernels, in order, each
/// with the trace events of its kernels read ahead (in trace order, so a
/// gzip trace is inflated once) and held until Body returns: at most
/// TraceWindowKernels kernels from traces and TraceWindowBytes of their
/// events per range (at least one kernel). Kernels not from a trace take no
/// room: without traces, one call covers them all.
void forEachTraceWindow(llvm::ArrayRef<const Kernel *> Kernels,
                        llvm::function_ref<void(size_t, size_t)> Body);

} // namespace gestell

#endif
