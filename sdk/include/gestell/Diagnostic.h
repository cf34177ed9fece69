//===- gestell/Diagnostic.h - What a check reports ------------------------===//
//
// A diagnostic is one finding of one check on one kernel: a level, a message,
// the artifact line the check read (the primary location), the Python source
// line the debug info points to, related lines in other stages, notes (one
// per metric for threshold checks), a fix hint naming the compiler stage or
// pass to look at, and a normalized context from which the stable
// fingerprint is computed (SARIF partialFingerprints).
//
// Checks build diagnostics with Check::diag() (see Check.h); the engine fills
// in the kernel and target and hands them to the reporters.
//
//===----------------------------------------------------------------------===//
#ifndef GESTELL_DIAGNOSTIC_H
#define GESTELL_DIAGNOSTIC_H

#include "gestell/Bundle.h"
#include "gestell/Level.h"

#include "llvm/ADT/StringRef.h"
#include "llvm/ADT/Twine.h"

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace gestell {


/// A place in an artifact of the kernel, or in the Python source. (Not
/// gestell::Location of SourceLoc.h, which is an MLIR location node.)
struct DiagLoc {
  /// The artifact's path (absolute, as discovered), or for a source
  /// location the file as the debug info names it ("/src/kernels/k.py").
  std::string File;
  uint32_t Line = 0;   ///< 1-based; 0 = the file as a whole
  uint32_t Column = 0; ///< 1-based; 0 = unknown
  /// The artifact's stage; empty for a Python source location.
  std::optional<Stage> ArtifactStage;
  /// What is at this place, for related locations ("the conversion",
  /// "consumer"); may be empty.
  std::string Message;
  /// A Python source location only: the other lines of the user's code on
  /// its inlining chain (file, line), innermost first. Triton inlines every
  /// @triton.jit helper, so a finding in a helper maps to the kernel's call
  /// line (File, Line) and to the helper's lines here. Inline suppressions
  /// (`# gestell: ignore[...]`) on any of them apply.
  std::vector<std::pair<std::string, uint32_t>> InlinedFrames;

  static DiagLoc artifact(Stage S, llvm::StringRef File, uint32_t Line = 0,
                           uint32_t Column = 0);
  static DiagLoc source(llvm::StringRef File, uint32_t Line,
                         uint32_t Column = 0);
  bool isSource() const { return !ArtifactStage.has_value(); }
  bool isValid() const { return !File.empty(); }
};

/// Extra information attached to a diagnostic. Threshold checks add one note
/// per metric: "296 staging instructions in loops (threshold 64)".
struct Note {
  std::string Message;
  std::optional<DiagLoc> Loc; ///< none: at the diagnostic's primary location
};

/// Where in the compiler to look, and what to look for.
struct FixHint {
  /// The compiler stage or pass: "ptxas", "TritonGPU
  /// remove-layout-conversions".
  std::string Where;
  std::string Message;
};

struct Diagnostic {
  std::string CheckId;
  Level Severity = Level::Warning;
  std::string Message; ///< lowercase start, no final period (LLVM style)
  DiagLoc Primary;    ///< the artifact line the check read
  /// The Python source line the debug info points to. SARIF makes it the
  /// primary location (mapped with --path-map) and Primary a related one.
  std::optional<DiagLoc> SourceLoc;
  std::vector<DiagLoc> Related; ///< the matching lines of other stages
  std::vector<Note> Notes;
  std::optional<FixHint> Hint;
  /// Normalized context the fingerprint is computed from: op names and
  /// canonical layouts, or opcodes. Never line numbers, paths or counts that
  /// move with unrelated edits. Empty: the message with digits masked.
  std::vector<std::string> Context;
  /// The causes the finding is about, when several checks may see them: the
  /// artifact lines of the ops that made the code (a ttg.convert_layout in
  /// the .ttgir; both conversions of a round trip). The engine merges
  /// findings of one kernel that share a cause into one
  /// (docs/checks/README.md, "One cause, one finding").
  std::vector<DiagLoc> Causes;
  /// Findings merged into this one (filled by the engine): their check ids
  /// and messages, shown as notes.
  std::vector<std::pair<std::string, std::string>> Merged;

  // Filled by the engine, not by checks.
  std::string Kernel; ///< kernel name
  std::string Target; ///< "cuda:100", or "" when unknown
};

/// The stable identity of a diagnostic: a hex digest of the check id, kernel
/// name, target and normalized context. It survives edits that move lines
/// and a different cache folder; it changes when the finding changes.
std::string fingerprint(const Diagnostic &D);

/// Orders diagnostics deterministically: primary file, line, column, check
/// id, message, then the rest. Reporters rely on it (output identical for
/// any number of threads).
bool diagnosticLess(const Diagnostic &A, const Diagnostic &B);

} // namespace gestell

#endif
