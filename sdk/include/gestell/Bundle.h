//===- gestell/Bundle.h - Kernels found on disk and their artifacts -------===//
//
// A bundle is whatever the user pointed at: a Triton cache directory
// (<hash>/ folders with __grp__<name>.json), a TRITON_DUMP_DIR, a plain folder
// of <name>.<stage> files, TritonParse traces (gestell/Trace.h), or single
// files. Discovery turns it into Kernels: one Kernel is a folder plus a kernel
// name (or a trace's compilation event), with the path of every stage that
// is present and a record of what is missing. Nothing is parsed here beyond
// the small metadata .json (and a trace's events, one at a time).
//
//===----------------------------------------------------------------------===//
#ifndef GESTELL_BUNDLE_H
#define GESTELL_BUNDLE_H

#include "gestell/Level.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <array>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace gestell {

/// The artifacts Triton (and our corpus tools) leave per kernel.
enum class Stage : uint8_t {
  Source,   ///< <name>.source (Python-level source as Triton saw it)
  TTIR,     ///< <name>.ttir
  TTGIR,    ///< <name>.ttgir
  LLIR,     ///< <name>.llir
  PTX,      ///< <name>.ptx
  Cubin,    ///< <name>.cubin
  Metadata, ///< <name>.json
  SASS,     ///< <name>.sass (nvdisasm or cuobjdump format, told by content)
  SASSAlt,  ///< <name>.cuobjdump.sass (second SASS rendering, if any)
  ResUsage, ///< <name>.res-usage.txt (cuobjdump -res-usage)
};
inline constexpr unsigned NumStages = 10;

/// Short lowercase name used on the command line, in JSON and in SARIF:
/// source, ttir, ttgir, llir, ptx, cubin, json, sass, sass-alt, res-usage.
llvm::StringRef stageName(Stage S);
std::optional<Stage> stageFromName(llvm::StringRef Name);
/// File suffix of a stage, with the leading dot (".cuobjdump.sass", ...).
llvm::StringRef stageSuffix(Stage S);

/// The fields of Triton's <name>.json that the analyzer uses. Absent keys
/// stay empty / nullopt; the raw file is not kept.
struct KernelMetadata {
  std::string Name;
  std::string Hash;   ///< hex, as Triton writes it (not the folder name)
  std::string Target; ///< spelled like Triton: "cuda:100"
  std::string Arch;   ///< "sm100" (from "arch" when present)
  std::optional<int64_t> NumWarps, NumCtas, NumStages, WarpSize;
  std::optional<int64_t> Shared;   ///< dynamic shared memory, bytes
  std::optional<int64_t> TmemSize; ///< TMEM columns
  std::optional<int64_t> MaxNReg;
  std::string TritonVersion;
  /// The constexpr arguments, "4=1024, 5=64" (argument index = value, by
  /// index), from a TritonParse trace's src_constants; "" when unknown (a
  /// cache's .json does not hold them).
  std::string Constants;
  /// No .json beside the kernel (a TRITON_DUMP_DIR has none): Target,
  /// NumWarps, NumCtas and WarpSize come from the .ttgir's module
  /// attributes and every other field is empty.
  bool FromTtgir = false;
  bool operator==(const KernelMetadata &) const = default;
};

/// Where the compilation event of a kernel read from a TritonParse trace is.
struct TraceEventRef {
  std::string Trace; ///< the trace file (absolute)
  unsigned Line = 0; ///< the event's line
  /// The line's offset and length (with its line ending) in the trace,
  /// uncompressed.
  uint64_t Offset = 0, Length = 0;
};

/// One kernel: a folder plus a name, with the stages found beside it; or a
/// compilation event of a trace, with the stages it holds.
struct Kernel {
  /// Kernel name, e.g. "attn_fwd": the file stem, less the '@' Triton puts
  /// before it when it compiled the kernel from an IR file ("@attn_fwd.ptx"),
  /// unless files "attn_fwd.*" in the same folder are another kernel.
  std::string Name;
  /// Folder holding the files (as given, made absolute); for a kernel of a
  /// trace, the event's label "TRACE:LINE" (gestell/Trace.h).
  std::string Dir;
  /// Every stage's file (path()), one after the other: one allocation for
  /// them all, since gestell diff keeps every kernel it reads. Set with
  /// setPath().
  std::string PathText;
  std::array<std::pair<uint32_t, uint32_t>, NumStages> PathSpans{};
  /// Why a stage is absent when there is more to say than "no such file"
  /// (a trace's cubin outside the scanned folders), for those stages only.
  std::vector<std::pair<Stage, std::string>> AbsentWhy;
  /// Set for a kernel read from a trace.
  std::optional<TraceEventRef> Trace;
  /// Parsed <name>.json, if usable; without one, what the .ttgir's module
  /// attributes say (KernelMetadata::FromTtgir). Null when neither says.
  /// Shared, never changed once set: kernels whose .json holds the same
  /// bytes (a later build's untouched kernels, in gestell diff) share one.
  std::shared_ptr<const KernelMetadata> Meta;
  /// Problems found while discovering (unreadable metadata, ...). They are
  /// reported, never fatal.
  std::vector<std::string> Notes;
  /// Discovery left Meta (and its Notes) to loadKernelMetadata()
  /// (DiscoveryOptions::DeferMetadata).
  bool MetadataDeferred = false;

  bool has(Stage S) const {
    return PathSpans[static_cast<unsigned>(S)].second != 0;
  }
  /// The stage's file; "" where the stage is absent. A stage of a trace has
  /// the label "TRACE:LINE: FILE", which openArtifact() reads; its cubin is
  /// a file. Valid until the next setPath().
  llvm::StringRef path(Stage S) const {
    auto [Offset, Size] = PathSpans[static_cast<unsigned>(S)];
    return llvm::StringRef(PathText).substr(Offset, Size);
  }
  /// Makes Path the file of stage S ("": absent).
  void setPath(Stage S, llvm::StringRef Path);
  /// AbsentWhy of S, else Default.
  std::string absentWhy(Stage S, llvm::StringRef Default) const;
  /// Stages with a file present, in Stage order, by name.
  std::vector<llvm::StringRef> presentStages() const;
  /// Target from the metadata ("cuda:100"), or "" if unknown.
  llvm::StringRef target() const;
  /// The target names a backend other than CUDA ("hip:gfx942"): the kernel
  /// has no cubin, PTX or SASS to miss, and no NVIDIA occupancy.
  bool otherBackend() const {
    return !target().empty() && !target().starts_with("cuda:");
  }
};

/// A problem with an input path itself (does not exist, unreadable, ...):
/// an error. Entries skipped on purpose are warnings (a link out of the
/// scanned folder) or remarks (a folder or FIFO named like an artifact).
struct DiscoveryProblem {
  std::string Path;
  std::string Message;
  Level Severity = Level::Error;
  unsigned Line = 0, Column = 0; ///< in Path, when known (a trace's event)
  /// "path", "path:line" or "path:line:col": what a message starts with.
  std::string where() const;
};

struct Discovery {
  std::vector<Kernel> Kernels; ///< sorted by kernelLess: deterministic
  std::vector<DiscoveryProblem> Problems;
};

/// Finds kernels under each path (a file or a folder, searched recursively).
/// Links are followed only to files and folders inside the scanned paths
/// (after resolving every link), each folder once, so a link to `/` or out
/// of the bundle is never followed. Never fails as a whole: a path that
/// cannot be read becomes a DiscoveryProblem.
Discovery discoverKernels(llvm::ArrayRef<std::string> Paths);

struct DiscoveryOptions {
  /// Leave each kernel's metadata unread (Kernel::MetadataDeferred), for the
  /// caller to read in the kernel's own task, in parallel with the others:
  /// loadKernelMetadata().
  bool DeferMetadata = false;
  /// --trace-cache: folders a trace's cubin may be read from, besides the
  /// scanned ones; a cubin the trace names under another machine's cache
  /// is looked for here as <cache key>/<name>.cubin.
  std::vector<std::string> TraceCaches;
  /// Folders scanned in the same run by other calls (each input path of
  /// gestell check is discovered apart): a trace's cubin may lie there too.
  std::vector<std::string> AlsoScanned;
};

/// The order of Discovery::Kernels: by folder (a trace kernel: its trace
/// file), then a trace's kernels by line, then by name.
bool kernelLess(const Kernel &A, const Kernel &B);
/// What makes two kernels one: the folder and the name; for a kernel read
/// from a trace, its metadata hash when it has one (the raw and the parsed
/// trace of a run hold the same compilations, and a trace records a kernel
/// again each time it is loaded). Of kernels with one identity, the first
/// in kernelLess order is kept.
std::string kernelIdentity(const Kernel &K);
Discovery discoverKernels(llvm::ArrayRef<std::string> Paths,
                          const DiscoveryOptions &Opts);

/// Reads the metadata discovery deferred: Meta from the .json, else from the
/// .ttgir's module attributes; an unreadable .json is a located error in
/// Notes ("file:line:col: ..."), as discovery would have made it. Does
/// nothing when K's metadata is not deferred. Safe to call for different
/// kernels at once.
void loadKernelMetadata(Kernel &K);

/// Whether any problem of D is an error (the run then exits 2).
bool hasErrors(const Discovery &D);

/// Parses a Triton metadata .json file. Exposed for tests.
llvm::Expected<KernelMetadata> readKernelMetadata(llvm::StringRef Path);
/// Parses Triton metadata held in memory (Path is used in messages only).
/// Errors are InputErrors at Path:line:col, nesting deeper than 256 levels
/// among them.
llvm::Expected<KernelMetadata> parseKernelMetadata(llvm::StringRef Text,
                                                   llvm::StringRef Path);

/// The target, warps, CTAs and threads per warp in the `module attributes
/// {...}` line of a .ttgir (FromTtgir set); nullopt when the file cannot be
/// read or has no such line. Reads only up to that line.
std::optional<KernelMetadata> metadataFromTtgir(llvm::StringRef Path);
/// The same, of a .ttgir's text.
std::optional<KernelMetadata> metadataFromTtgirText(llvm::StringRef Text);

} // namespace gestell

#endif
