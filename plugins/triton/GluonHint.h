//===- GluonHint.h - The fix hint of a conversion a Gluon author wrote ----===//
//
// A Gluon kernel starts at TTGIR (no .ttir: compiledFromGluon): its
// ttg.convert_layout ops are the author's gl.convert_layout calls, not a
// compiler pass's choice, so the hint of a conversion check names that call
// instead of a TritonGPU pass.
//
//===----------------------------------------------------------------------===//
#ifndef GESTELL_PLUGINS_TRITON_GLUONHINT_H
#define GESTELL_PLUGINS_TRITON_GLUONHINT_H

#include "gestell/Check.h"

namespace gestell::triton {

/// The hint of a Gluon kernel's conversion: What says what to change.
inline void gluonHint(DiagnosticBuilder &D, llvm::StringRef What) {
  D.hint("Gluon kernel (the author's gl.convert_layout)",
         "the kernel asks for this conversion with gl.convert_layout at the "
         "Python line: " +
             What);
}

} // namespace gestell::triton

#endif
