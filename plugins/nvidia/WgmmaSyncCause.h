//===- WgmmaSyncCause.h - Why a dot keeps no wgmma in flight ---*- C++ -*-===//
//
// Triton's MMA pipelining (WGMMAPipeline.cpp, dotCanBeProperlyAsync) makes a
// ttng.warp_group_dot in a loop "properly async" only when
//   1. its shared-memory operands come from a multi-buffered ring
//      (ttg.memdesc_index, or defined outside the loop),
//   2. nothing in the loop reads its result unconditionally before the yield
//      (2.1: and the accumulator is f32),
//   3. the result carried into the next iteration is read only as the
//      accumulator of a dot.
// Otherwise it follows the dot with `ttng.warp_group_dot_wait {pendings = 0}`.
// This reads which of the rules the TTGIR breaks, with the op that breaks it.
//
//===----------------------------------------------------------------------===//
#ifndef GESTELL_PLUGINS_NVIDIA_WGMMASYNCCAUSE_H
#define GESTELL_PLUGINS_NVIDIA_WGMMASYNCCAUSE_H

#include "gestell/Check.h"
#include "gestell/Ttgir.h"

namespace gestell::nvidia {

struct WgmmaSyncCause {
  const Operation *Dot = nullptr; ///< the ttng.warp_group_dot waited for
  /// Rule 1: the op in the loop that makes an operand (ttg.local_alloc),
  /// and the op that made the tensor it stores (tt.load, ttg.local_load).
  const Operation *Unbuffered = nullptr, *UnbufferedSource = nullptr;
  /// Rule 2: an op of the loop body that reads the result.
  const Operation *ReadInIteration = nullptr;
  bool NonF32Accumulator = false; ///< rule 2.1
  /// Rule 3: an op that reads the carried result other than as a dot's
  /// accumulator.
  const Operation *ReadCarried = nullptr;
};

/// The causes of the full wait Wait (`ttng.warp_group_dot_wait {pendings =
/// 0}` in a loop); nothing when the wait does not follow a dot of its loop.
WgmmaSyncCause wgmmaSyncCause(const Operation &Wait);

/// The fix hint (and related locations) of a full wait the TTGIR pipeliner
/// left, DotWait in Ttgir (either may be null): the rules the loop breaks,
/// each with the op that breaks it; the first names the stage.
void explainSyncDot(DiagnosticBuilder &D, const TtgirModule *Ttgir,
                    const Operation *DotWait);

} // namespace gestell::nvidia

#endif
