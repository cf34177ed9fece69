//===- LayoutReadBack.cpp - Canonical layout text reads back the same -----===//
#include "LayoutReadBack.h"
#include "FuzzSupport.h"

using namespace llvm;

namespace gestell::fuzz {

void checkLayoutReadsBack(const Layout &L, ArrayRef<int64_t> Shape) {
  if (L.K == Layout::Kind::Other)
    return; // printed by name only: nothing to read back
  std::string Text = L.canonicalText();
  Expected<Layout> Back = parseLayoutText(Text);
  if (!Back)
    fail("canonical layout text does not read back: " + Text + ": " +
         toString(Back.takeError()));
  std::string Again = Back->canonicalText();
  if (Again != Text)
    fail("canonical layout text reads back as another layout: " + Text +
         " reads back as " + Again);
  if (Shape.empty() || !L.isDistributed())
    return;
  Expected<LinearLayout> Mine = toLinearLayout(L, Shape);
  if (!Mine) {
    consumeError(Mine.takeError());
    return; // not a shape this layout applies to
  }
  Expected<LinearLayout> Theirs = toLinearLayout(*Back, Shape);
  if (!Theirs)
    fail("canonical layout text " + Text +
         " reads back as a layout with "
         "no linear layout on a shape the original has one for: " +
         toString(Theirs.takeError()));
  if (*Mine != *Theirs)
    fail("canonical layout text " + Text +
         " reads back as another linear "
         "layout: " +
         Mine->str() + " vs " + Theirs->str());
}

} // namespace gestell::fuzz
