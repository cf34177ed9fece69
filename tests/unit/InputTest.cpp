//===- InputTest.cpp - Artifact files compared without reading them whole -===//
//
// sameArtifactBytes says what a compare of the two files' whole contents
// says: equal files of several chunks (also one file under two names), a
// difference in a later chunk or in the last byte, sizes that differ, and
// paths that are not readable files.
//
//===----------------------------------------------------------------------===//
#include "gestell/Input.h"

#include "CorpusFiles.h"

#include "llvm/Support/FileSystem.h"

#include <gtest/gtest.h>

#include <string>

using namespace gestell;
using namespace gestell::test;

namespace {

class SameArtifactBytes : public ::testing::Test {
protected:
  void SetUp() override { ASSERT_FALSE(Dir.empty()); }
  std::string file(llvm::StringRef Name, const std::string &Data) {
    std::string P = Dir + "/" + Name.str();
    EXPECT_TRUE(writeFile(P, Data));
    return P;
  }
  TempDir Made{"gestell-input"};
  const std::string &Dir = Made.Path;
  /// Three chunks and a bit (the compare reads 64 KiB of each at a time),
  /// no two chunks alike.
  std::string Big = [] {
    std::string S(3 * 65536 + 17, '\0');
    for (size_t I = 0; I < S.size(); ++I)
      S[I] = char('a' + (I * 7 + I / 65536) % 26);
    return S;
  }();
};

TEST_F(SameArtifactBytes, EqualFilesOfSeveralChunks) {
  EXPECT_TRUE(sameArtifactBytes(file("a", Big), file("b", Big)));
  EXPECT_TRUE(sameArtifactBytes(file("e1", ""), file("e2", "")));
  std::string A = file("one", Big);
  EXPECT_TRUE(sameArtifactBytes(A, A));
  std::string Linked = Dir + "/one-linked";
  ASSERT_FALSE(llvm::sys::fs::create_hard_link(A, Linked));
  EXPECT_TRUE(sameArtifactBytes(A, Linked));
}

TEST_F(SameArtifactBytes, ADifferenceInALaterChunkOrTheLastByte) {
  std::string A = file("a", Big);
  for (size_t At : {size_t(0), size_t(65535), size_t(65536),
                    size_t(2 * 65536 + 3), Big.size() - 1}) {
    SCOPED_TRACE(At);
    std::string Other = Big;
    Other[At] ^= 1;
    EXPECT_FALSE(sameArtifactBytes(A, file("b", Other)));
  }
}

TEST_F(SameArtifactBytes, SizesThatDiffer) {
  std::string Longer = Big + "x";
  EXPECT_FALSE(sameArtifactBytes(file("a", Big), file("b", Longer)));
  EXPECT_FALSE(sameArtifactBytes(file("c", ""), file("d", "x")));
}

TEST_F(SameArtifactBytes, PathsThatAreNotReadableFiles) {
  std::string A = file("a", "text");
  EXPECT_FALSE(sameArtifactBytes(A, Dir + "/missing"));
  EXPECT_FALSE(sameArtifactBytes(Dir + "/missing", Dir + "/missing"));
  EXPECT_FALSE(sameArtifactBytes(Dir, Dir)); // a folder, not a file
}

} // namespace
