//===- SassCountsCacheTest.cpp - SASS counts kept beside a cached listing -===//
//
// Counts of a real listing written and read back equal the counts made
// from the parse; a file that is not exactly what keepSassCounts writes
// (edited, cut short, for another table) reads as no counts.
//
//===----------------------------------------------------------------------===//
#include "metrics/SassCountsCache.h"

#include "gestell/Sass.h"

#include "CorpusFiles.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"

#include <gtest/gtest.h>

using namespace gestell;
using namespace gestell::test;

namespace {

void expectSame(const StageCounts &A, const StageCounts &B) {
  EXPECT_EQ(A.Of, B.Of);
  EXPECT_EQ(A.Functions, B.Functions);
  EXPECT_EQ(A.Loops, B.Loops);
  EXPECT_EQ(A.Instructions, B.Instructions);
  EXPECT_EQ(A.Families, B.Families);
  EXPECT_EQ(A.Other, B.Other);
  EXPECT_TRUE(A.Opcodes == B.Opcodes);
  EXPECT_EQ(A.NeverExecuted, B.NeverExecuted);
}

class SassCountsCache : public ::testing::Test {
protected:
  void SetUp() override {
    ASSERT_FALSE(Dir.empty());
    Listing = Dir + "/0123456789abcdef.sass";
    std::string Real = std::string(GESTELL_TEST_CORPUS) +
                       "/triton-3.6.0/bundles/sm90/matmul_f16/matmul.sass";
    ASSERT_TRUE(writeFile(Listing, readFile(Real)));
    auto M = parseSass(Listing);
    ASSERT_TRUE(bool(M)) << llvm::toString(M.takeError());
    Counts = countInstructions(**M, FamilyTable::builtin());
    ASSERT_GT(Counts.Instructions.Total, 0u);
    ASSERT_GT(Counts.NeverExecuted + Counts.Loops, 0u);
  }
  TempDir Made{"gestell-counts"};
  const std::string &Dir = Made.Path;
  std::string Listing;
  StageCounts Counts;
};

TEST_F(SassCountsCache, KeptCountsReadBackEqual) {
  const FamilyTable &T = FamilyTable::builtin();
  std::string Path = sassCountsPath(Listing, T);
  ASSERT_FALSE(Path.empty()) << "libgestell has no GNU build ID";
  EXPECT_FALSE(readSassCounts(Listing, T)); // none kept yet
  keepSassCounts(Listing, T, Counts);
  std::optional<StageCounts> Read = readSassCounts(Listing, T);
  ASSERT_TRUE(Read);
  expectSame(*Read, Counts);
  // Beside the listing, and nothing else left behind (no temporary file).
  std::error_code EC;
  unsigned Files = 0;
  for (llvm::sys::fs::directory_iterator It(Dir, EC), End; It != End && !EC;
       It.increment(EC))
    ++Files;
  EXPECT_EQ(Files, 2u);
  EXPECT_EQ(llvm::StringRef(Path).rsplit('/').first, Dir);
}

TEST_F(SassCountsCache, AnotherTableHasItsOwnFile) {
  FamilyTable Other = llvm::cantFail(
      FamilyTable::parse("[[family]]\nid='branch'\nsass=['BRA*']\n", "t.toml"));
  FamilyTable Merged = FamilyTable::merge(Other, FamilyTable::builtin());
  EXPECT_NE(Merged.digest(), FamilyTable::builtin().digest());
  EXPECT_NE(sassCountsPath(Listing, Merged),
            sassCountsPath(Listing, FamilyTable::builtin()));
  keepSassCounts(Listing, FamilyTable::builtin(), Counts);
  EXPECT_FALSE(readSassCounts(Listing, Merged));
}

TEST_F(SassCountsCache, AFileNotAsWrittenIsNoCounts) {
  const FamilyTable &T = FamilyTable::builtin();
  keepSassCounts(Listing, T, Counts);
  std::string Path = sassCountsPath(Listing, T);
  const std::string Good = readFile(Path);
  ASSERT_FALSE(Good.empty());
  auto With = [&](std::string Text) {
    EXPECT_TRUE(writeFile(Path, Text));
    return readSassCounts(Listing, T);
  };
  auto Replaced = [&](llvm::StringRef From, llvm::StringRef To) {
    std::string S = Good;
    size_t At = S.find(From.str());
    EXPECT_NE(At, std::string::npos) << From.str();
    return S.replace(At, From.size(), To.str());
  };
  EXPECT_TRUE(With(Good));
  EXPECT_FALSE(With(""));
  EXPECT_FALSE(With(Good.substr(0, Good.size() / 2))); // cut short
  EXPECT_FALSE(With(Good.substr(0, Good.size() - 4))); // no "end"
  EXPECT_FALSE(With(Good + "extra\n"));                // after "end"
  EXPECT_FALSE(
      With(Replaced("gestell-sass-counts 1", "gestell-sass-counts 2")));
  EXPECT_FALSE(With(Replaced("families 10", "families 9"))); // other table
  EXPECT_FALSE(With(Replaced("\nloops ", "\nloops -")));
  EXPECT_FALSE(With(Replaced("\nnever ", "\nnever x")));
  // An opcode line out of order, or one that counts more in loops than in
  // all.
  std::string Opcodes = Good.substr(Good.find("opcodes "));
  size_t First = Opcodes.find('\n') + 1;
  size_t Second = Opcodes.find('\n', First) + 1;
  size_t Third = Opcodes.find('\n', Second) + 1;
  std::string Swapped =
      Good.substr(0, Good.find("opcodes ")) + Opcodes.substr(0, First) +
      Opcodes.substr(Second, Third - Second) +
      Opcodes.substr(First, Second - First) + Opcodes.substr(Third);
  ASSERT_EQ(Swapped.size(), Good.size());
  EXPECT_FALSE(With(Swapped));
  std::string Line = Opcodes.substr(First, Second - First - 1);
  std::string Inverted =
      "1 2 " + Line.substr(Line.find(' ', Line.find(' ') + 1) + 1);
  EXPECT_FALSE(With(Replaced(Line, Inverted)));
  // Back as written: read again.
  EXPECT_TRUE(With(Good));
}

} // namespace
