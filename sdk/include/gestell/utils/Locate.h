//===- gestell/utils/Locate.h - Locations of instructions and ops ------===//
//
// Turns what a check found (a PTX or SASS instruction, a TTGIR op) into the
// locations a diagnostic carries: the artifact line (DiagLoc::artifact) and
// the Python line the debug info points to, the frame a person wants to see
// (the outermost one in user code, not in Triton's own package; see
// userFrame() in SourceLoc.h). Checks use them so that every check points
// the same way:
//
//   diag(locate(Ptx, I), "...").source(pythonSource(Ptx, I));
//
//===----------------------------------------------------------------------===//
#ifndef GESTELL_UTILS_LOCATE_H
#define GESTELL_UTILS_LOCATE_H

#include "gestell/Diagnostic.h"
#include "gestell/Ptx.h"
#include "gestell/Sass.h"
#include "gestell/Ttgir.h"

#include <optional>
#include <tuple>

namespace gestell {

/// The instruction's line and column in the .ptx file.
DiagLoc locate(const PtxModule &M, const PtxInstruction &I);
/// The instruction's line and column in the SASS listing (stage sass, or
/// sass-alt for a .cuobjdump.sass file).
DiagLoc locate(const SassModule &M, const SassInstruction &I);
/// The line that starts a function: `.entry name(` in the PTX, the
/// function's section or listing header in the SASS.
DiagLoc locate(const PtxModule &M, const PtxFunction &F);
DiagLoc locate(const SassModule &M, const SassFunction &F);
/// The op's line and column in the .ttgir file.
DiagLoc locate(const TtgirModule &M, const Operation &Op);

/// The Python line of an instruction or op, from PTX .loc, nvdisasm line
/// info (following inlined-at frames) or the TTGIR loc(...); empty when the
/// debug info has none, names only Triton's own files, or names a file
/// that is not Python (a kernel compiled from a hand-written .ttgir).
std::optional<DiagLoc> pythonSource(const PtxModule &M,
                                    const PtxInstruction &I);
std::optional<DiagLoc> pythonSource(const SassModule &M,
                                    const SassInstruction &I);
std::optional<DiagLoc> pythonSource(const TtgirModule &M, const Operation &Op);

/// The file and line of pythonSource(M, I) (or of Op), as views into the
/// module's text: for comparing many instructions' lines, where a DiagLoc
/// each (a copy of the path, the inlined frames) would cost more than the
/// comparison.
struct PythonLine {
  llvm::StringRef File;
  uint32_t Line = 0;
  bool operator==(const PythonLine &O) const {
    return Line == O.Line && File == O.File;
  }
  /// An order for sorted containers: by line first, so that most
  /// comparisons do not reach the (long, alike) paths.
  bool operator<(const PythonLine &O) const {
    return std::tie(Line, File) < std::tie(O.Line, O.File);
  }
};
std::optional<PythonLine> pythonLine(const SassModule &M,
                                     const SassInstruction &I);
std::optional<PythonLine> pythonLine(const TtgirModule &M, const Operation &Op);

} // namespace gestell

#endif
