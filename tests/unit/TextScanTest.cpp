//===- TextScanTest.cpp - The prescans' word search -----------------------===//
//
// scan::containsAny must say what StringRef::contains says for each word,
// wherever the word lies relative to its 32-byte blocks and the end.
//
//===----------------------------------------------------------------------===//
#include "readers/TextScan.h"

#include "gtest/gtest.h"

#include <random>
#include <string>

using namespace gestell;
using llvm::StringRef;

namespace {

bool reference(StringRef Text, llvm::ArrayRef<StringRef> Words) {
  for (StringRef W : Words)
    if (Text.contains(W))
      return true;
  return false;
}

TEST(TextScan, ContainsAnyFindsAWordAtEveryOffset) {
  const StringRef Words[] = {"tt.descriptor_", "ttng.async_tma_"};
  for (size_t Len : {0, 1, 14, 15, 31, 45, 46, 47, 64, 100, 200})
    for (size_t At = 0; At <= Len; ++At)
      for (StringRef W : Words) {
        // Filler that holds each word's first and last byte, so candidates
        // are found and rejected around the real match.
        std::string Text(Len, 't');
        for (size_t K = 1; K < Len; K += 3)
          Text[K] = '_';
        if (At + W.size() <= Len)
          Text.replace(At, W.size(), W.str());
        SCOPED_TRACE(Text);
        EXPECT_EQ(scan::containsAny(Text, Words), reference(Text, Words));
        EXPECT_EQ(scan::containsAny(Text, {W}), reference(Text, {W}));
      }
}

TEST(TextScan, ContainsAnyAgreesWithContainsOnRandomText) {
  std::mt19937 Rng(7);
  const std::string Alphabet = "t._l";
  const StringRef Words[] = {".l", "t.t", "_t_", "t", "l._t.l_"};
  for (int Round = 0; Round < 2000; ++Round) {
    std::string Text(Rng() % 120, ' ');
    for (char &C : Text)
      C = Alphabet[Rng() % Alphabet.size()];
    for (size_t First = 0; First < std::size(Words); ++First)
      for (size_t Count = 1; Count <= 2 && First + Count <= std::size(Words);
           ++Count) {
        llvm::ArrayRef<StringRef> Some(Words + First, Count);
        ASSERT_EQ(scan::containsAny(Text, Some), reference(Text, Some))
            << Text << " words from " << First << " x" << Count;
      }
  }
}

TEST(TextScan, ContainsAnyOfNoWordsOrAnEmptyWord) {
  EXPECT_FALSE(scan::containsAny("abc", {}));
  EXPECT_TRUE(scan::containsAny("", {""}));
  EXPECT_TRUE(scan::containsAny("abc", {"zz", ""}));
  // More words than one pass takes: each is still looked for.
  EXPECT_TRUE(scan::containsAny(std::string(100, 'a') + "q",
                                {"x", "y", "z", "w", "q"}));
  EXPECT_FALSE(
      scan::containsAny(std::string(100, 'a'), {"x", "y", "z", "w", "q"}));
}

} // namespace
