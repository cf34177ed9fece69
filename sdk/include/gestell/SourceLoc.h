//===- gestell/SourceLoc.h - MLIR debug locations, resolved ---------------===//
//
// MLIR prints a debug location after every operation: `loc(#loc12)` names an
// alias defined elsewhere in the file (usually at its end), and the alias is
// one of
//   loc("file.py":58:42)            a file, line and column
//   loc("acc"(#loc34))              a name (the Python variable) around a loc
//   loc(callsite(#a at #b))         an inlined call: callee #a, caller #b
//   loc(fused[#a, #b])              several locations merged by a pass
//   loc(unknown)                    no location
// The parser keeps the tree (Location); resolveLocation() flattens it into a
// call stack of file:line:col frames, innermost first, with the names seen on
// the way. userFrame() picks the frame a person wants to see: the outermost
// one inside the source root (not a frame in triton/language/*.py).
//
//===----------------------------------------------------------------------===//
#ifndef GESTELL_SOURCELOC_H
#define GESTELL_SOURCELOC_H

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringRef.h"

#include <optional>
#include <string>

namespace gestell {

/// One node of an MLIR location as printed. Alias references are resolved
/// by the parser once the whole file is read (aliases follow their uses).
struct Location {
  enum class Kind : uint8_t {
    Unknown,     ///< loc(unknown)
    FileLineCol, ///< "file":line:col
    Name,        ///< "name"(child), or a bare "name"
    CallSite,    ///< callsite(callee at caller)
    Fused,       ///< fused[...] or fused<metadata>[...]
    Alias,       ///< #locN, before resolution; Target after
    Opaque,      ///< anything else, kept as text
  };
  Kind K = Kind::Unknown;
  llvm::StringRef Text; ///< the source text of this node
  llvm::StringRef File; ///< FileLineCol: the file (escapes kept as written)
  unsigned Line = 0, Column = 0;
  llvm::StringRef Name; ///< Name: the name; Alias: the alias ("#loc12")
  const Location *Child = nullptr;  ///< Name: wrapped location (may be null)
  const Location *Callee = nullptr; ///< CallSite
  const Location *Caller = nullptr; ///< CallSite
  llvm::ArrayRef<const Location *> Parts; ///< Fused
  const Location *Target = nullptr; ///< Alias: the definition (null: undefined)
};

/// A frame of a resolved location.
struct SourceFrame {
  std::string File;
  unsigned Line = 0;
  unsigned Column = 0;
  /// The innermost name location wrapping this frame ("acc"), if any.
  std::string Name;
};

/// A location flattened: Frames[0] is the innermost (where the code is, e.g.
/// in triton/language/standard.py), the last frame the outermost caller.
/// Empty Frames = the location is unknown.
struct SourceStack {
  llvm::SmallVector<SourceFrame, 2> Frames;
  bool unknown() const { return Frames.empty(); }
};

/// L's definition: alias nodes (#locN) followed to what they name; null for
/// an undefined alias or a cycle of aliases (hostile input), as for unknown.
/// Ops that share an alias share its definition, so it keys a cache of
/// resolved locations.
const Location *aliasTarget(const Location *L);

/// Flattens L (null = unknown). Unknown parts of a call site are skipped, so
/// callsite(unknown at "f.py":3:4) resolves to the single frame f.py:3:4. A
/// fused location resolves to its first known part.
SourceStack resolveLocation(const Location *L);

/// A frame as views into the text it was read from (valid while that
/// lives): what SourceFrame copies.
struct SourceFrameRef {
  llvm::StringRef File;
  unsigned Line = 0;
  unsigned Column = 0;
  llvm::StringRef Name;
};
/// resolveLocation(L)'s frames, in its order, appended to Out as views:
/// for a caller that looks at a location's frames without keeping them.
void resolveLocationFrames(const Location *L,
                           llvm::SmallVectorImpl<SourceFrameRef> &Out);

/// Whether File is Triton's own Python code (under triton/language/,
/// triton/runtime/ or triton/experimental/), not the user's.
bool inTritonPackage(llvm::StringRef File);

/// The frame to show a user: the outermost frame whose file is inside
/// SourceRoot (a path prefix; "" = any file not in Triton's own package,
/// i.e. not under a `triton/language/` or `triton/runtime/` folder).
std::optional<SourceFrame> userFrame(const SourceStack &S,
                                     llvm::StringRef SourceRoot = "");
/// The same frame of views, or null.
const SourceFrameRef *userFrame(llvm::ArrayRef<SourceFrameRef> Frames,
                                llvm::StringRef SourceRoot = "");

/// "file:line:col" (or "unknown").
std::string formatFrame(const SourceFrame &F);

/// formatFrame of L's user frame (userFrame, no source root); "" when it
/// has none.
std::string userSource(const Location *L);

} // namespace gestell

#endif
