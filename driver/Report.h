//===- Report.h - Writing results as text, JSON and SARIF -----------------===//
//
// Reporters turn a RunReport into bytes. Each is a pure function of the
// report (sorted by the runner) and the options, so output is identical
// whatever the number of threads. Files are written atomically by the
// caller (llvm::writeToOutput: a temporary file renamed into place).
//
//===----------------------------------------------------------------------===//
#ifndef GESTELL_DRIVER_REPORT_H
#define GESTELL_DRIVER_REPORT_H

#include "ReadScope.h"
#include "Runner.h"

#include "llvm/ADT/STLFunctionalExtras.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/raw_ostream.h"

#include <string>
#include <utility>
#include <vector>

namespace gestell::driver {

/// --path-map=FROM=TO: rewrites a path that starts with the folder FROM so
/// that it starts with TO. The longest matching FROM wins; TO may be
/// relative (to the repository root, for code scanning).
class PathMap {
public:
  /// Adds "FROM=TO" (split at the first '=').
  llvm::Error add(llvm::StringRef Spec);
  std::string map(llvm::StringRef Path) const;
  bool empty() const { return Rules.empty(); }
  /// The TO side of every rule (folders a mapped path may lead into).
  std::vector<std::string> targets() const;

private:
  std::vector<std::pair<std::string, std::string>> Rules;
};

struct ReportOptions {
  PathMap Paths;
  std::string ToolVersion;
  /// Base URL of gestell's docs; a check's relative DocPage is resolved
  /// against it for SARIF helpUri.
  std::string DocsUrl;
  /// Text: show suppressed results and those of the findings baseline too
  /// (--show-suppressed), each marked.
  bool ShowSuppressed = false;
  /// Text: headlines with their layouts in full (--verbose).
  bool Verbose = false;
  /// Text: the Python sources it may read to show a line under its note
  /// (the --path-map targets and the current directory); null = none.
  const ReadScope *Sources = nullptr;
};

/// Message with every long MLIR attribute (a TTGIR layout such as
/// "#ttg.nvidia_mma<{versionMajor = 3, ...}>") cut to its name:
/// "#ttg.nvidia_mma<...>". A headline to read; the full text goes beside.
std::string shortenLayouts(llvm::StringRef Message);

/// "" for an error (the default of a message), else "warning: " or
/// "note: ": how stderr lines say what is not an error.
llvm::StringRef levelPrefix(Level L);

/// "DIR/NAME" ("TRACE:LINE (NAME)" for a kernel of a trace): how run notes
/// name a kernel.
std::string kernelLabel(const Kernel &K);

/// The kernels of a run note, one per line after a newline ("\n  DIR/NAME"),
/// the first 8 and then "... and N more".
std::string kernelList(llvm::ArrayRef<std::string> Labels);

/// Writes through Write to stdout (Path "") or to Path: a regular file (or
/// a link to one) through a temporary file renamed over it at the end, so a
/// failed run never leaves half a file; anything else (a FIFO, /dev/null, a
/// link to one) written to directly, never replaced. Says why on stderr, after
/// Me ("gestell diff: "), and returns false when the file could not be written.
bool writeOutput(llvm::StringRef Path, llvm::StringRef Me,
                 llvm::function_ref<void(llvm::raw_ostream &)> Write);

/// SARIF's name of a level ("note" for a remark); also how notifications
/// print on stderr.
llvm::StringRef sarifLevel(Level L);

/// The absolute documentation URL of a check.
std::string helpUri(const CheckInfo &Info, const ReportOptions &Opts);

/// clang-style: "file:line:col: warning: message [check-id]", then "note:"
/// lines (Python source, related lines, notes, fix hint). Absent results
/// (--baseline) are left out, and so are suppressed ones and those in the
/// findings baseline unless Opts.ShowSuppressed.
void writeText(llvm::raw_ostream &OS, const RunReport &R,
               const ReportOptions &Opts);

/// The JSON format documented in docs/json.md.
void writeJson(llvm::raw_ostream &OS, const RunReport &R,
               const ReportOptions &Opts);

/// SARIF 2.1.0 for GitHub code scanning (docs/ci.md).
void writeSarif(llvm::raw_ostream &OS, const RunReport &R,
                const ReportOptions &Opts);

/// Fingerprints in report order; a repeated fingerprint gets ":2", ":3"...
std::vector<std::string> resultFingerprints(const RunReport &R);

/// "/a b/c.py" -> "file:///a%20b/c.py"; a relative path is percent-encoded.
std::string pathToUri(llvm::StringRef Path);

/// J.attribute(Key, S) for a string, the same bytes: text valid as UTF-8
/// is escaped and written a run at a time (json::OStream writes a string
/// a character at a time, after copying it into a json::Value, and the
/// reports' texts are most of their bytes); other text goes through
/// json::Value, which mends it.
void stringAttribute(llvm::json::OStream &J, llvm::StringRef Key,
                     llvm::StringRef S);

} // namespace gestell::driver

#endif
