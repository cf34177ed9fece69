//===- InlineIgnores.h - `# gestell: ignore[...]` in the Python source ----===//
//
// A finding is silenced where the code is, as with clang-tidy's NOLINT and
// ruff's noqa: a comment at the end of the Python line the finding maps to
// through the debug info,
//     acc = tl.dot(a, b, acc)  # gestell: ignore[nvidia-register-spill] why
// or on the line above it with `ignore-next-line[...]`. The brackets hold
// check globs (as --checks, without '-'), comma-separated; the rest of the
// line is the reason, which becomes the SARIF justification. The line may be
// the finding's Python line or any line of its inlining chain (a
// @triton.jit helper's line: Triton inlines helpers).
//
// A source is read only when the debug info's path, after --path-map, is a
// regular file under a --path-map target or the current directory
// (ReadScope): a path in an artifact never makes gestell read elsewhere.
//
//===----------------------------------------------------------------------===//
#ifndef GESTELL_DRIVER_INLINEIGNORES_H
#define GESTELL_DRIVER_INLINEIGNORES_H

#include "ReadScope.h"
#include "Report.h"
#include "Runner.h"

namespace gestell::driver {

/// Marks each result of R that an ignore comment covers as suppressed
/// (kind "inSource"). Malformed comments become warning notifications at
/// their line; with ReportUnused, so does every well-formed comment that
/// suppressed nothing, in the sources that were read.
void applyInlineIgnores(RunReport &R, const PathMap &Paths,
                        const ReadScope &Scope, bool ReportUnused);

} // namespace gestell::driver

#endif
