//===- gestell/utils/OptionalStages.h - Stages a check can do without ----===//
//
// One policy for every check and every stage. A stage the check needs is
// read with KernelView::ptx() (sass(), ttgir(), cubin()) and its error
// returned: the check does not run on that kernel. A stage the check only
// uses to decide more, or to say more (the TTGIR for a loop's Python line,
// the SASS beside the PTX), is read with the functions here: null when the
// kernel has no such stage and also when it does not read, and the check
// carries on without it. Nothing is lost: the KernelView records what could
// not be read and the run reports each unreadable artifact once, as an
// error (exit 2), whichever checks asked for it.
//
//   if (const SassModule *Sass = optionalSass(In.Kernel)) ...
//
// stageMayMention() looks at a stage's text before any parse, for a check
// that needs the parse only when some word occurs (tma-fallback's descriptor
// ops, register-spill's `.local`); optionalTtgirMentioning() does so for the
// TTGIR unless another check has parsed it.
//
//===----------------------------------------------------------------------===//
#ifndef GESTELL_UTILS_OPTIONALSTAGES_H
#define GESTELL_UTILS_OPTIONALSTAGES_H

#include "gestell/KernelView.h"

namespace gestell {

const PtxModule *optionalPtx(KernelView &V);
const SassModule *optionalSass(KernelView &V);
const TtgirModule *optionalTtgir(KernelView &V);
const CubinInfo *optionalCubin(KernelView &V);

/// Whether the text of K's stage S may hold any of Words: false when K has
/// no such stage or when its file reads and none of them occurs in it, so a
/// check may leave the stage unparsed. A file that does not open gives
/// true: the parse then says why.
bool stageMayMention(const Kernel &K, Stage S,
                     llvm::ArrayRef<llvm::StringRef> Words);

/// optionalTtgir for a check that needs the TTGIR only when its text names
/// one of Words: the parse another check already made, else null when the
/// text names none of them (stageMayMention), else optionalTtgir.
const TtgirModule *
optionalTtgirMentioning(KernelView &V, llvm::ArrayRef<llvm::StringRef> Words);

} // namespace gestell

#endif
