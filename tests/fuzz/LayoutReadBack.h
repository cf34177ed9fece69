//===- LayoutReadBack.h - Canonical layout text reads back the same -------===//
//
// Layout::canonicalText promises an alias-free spelling of the layout: read
// back with parseLayoutText it must give a layout with the same text and,
// for a distributed layout, the same linear layout on a shape.
//
//===----------------------------------------------------------------------===//
#ifndef GESTELL_TESTS_FUZZ_LAYOUTREADBACK_H
#define GESTELL_TESTS_FUZZ_LAYOUTREADBACK_H

#include "gestell/Layout.h"

#include "llvm/ADT/ArrayRef.h"

#include <cstdint>

namespace gestell::fuzz {

/// Aborts when L's canonical text does not read back as L. Shape (empty:
/// none) is a tensor shape to compare the linear layouts on.
void checkLayoutReadsBack(const Layout &L, llvm::ArrayRef<int64_t> Shape);

} // namespace gestell::fuzz

#endif
