//===- TtgirGraphTest.cpp - The graph each corpus TTGIR parses into, pinned
//===//
//
// Every .ttgir of tests/corpus and tests/fixtures parses into the graph it
// parsed into when tests/unit/ttgir-graphs.txt was written: that file holds,
// per file, the xxh3 of its TtgirGraphWriter text and its counts of ops and
// values. A parser change that changes anything a check can read (an op, a
// type, an attribute, a use, a location) fails here, naming the files; a
// rewrite of the parser that must build the same graphs passes unchanged.
// A change meant to change graphs writes the pins again:
//
//   GESTELL_UPDATE_TTGIR_GRAPHS=1 build/bin/gestell-unittests
//   --gtest_filter='TtgirGraph.*'
//
// and GESTELL_TTGIR_GRAPH_DUMPS=DIR writes each graph's text under DIR
// (by the file's path), to diff what two builds make of a file.
//
//===----------------------------------------------------------------------===//
#include "TtgirGraph.h"
#include "CorpusFiles.h"

#include "gestell/Ttgir.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/xxhash.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <string>
#include <vector>

using namespace gestell;
using namespace gestell::test;
using namespace llvm;

namespace {

std::string testsDir() {
  SmallString<256> P(GESTELL_TEST_CORPUS);
  sys::path::remove_filename(P); // tests/corpus -> tests
  return std::string(P);
}

std::string pinsPath() { return testsDir() + "/unit/ttgir-graphs.txt"; }

/// File's path under tests/ ("corpus/triton-3.6.0/...", "fixtures/...").
std::string key(StringRef File) {
  SmallString<256> P(File);
  sys::path::remove_dots(P, /*remove_dot_dot=*/true);
  SmallString<256> Root(testsDir());
  sys::path::remove_dots(Root, /*remove_dot_dot=*/true);
  StringRef Rel(P);
  if (Rel.consume_front(Root))
    Rel = Rel.ltrim('/');
  return Rel.str();
}

const char *env(const char *Name) {
  const char *V = std::getenv(Name);
  return V && *V ? V : nullptr;
}

} // namespace

TEST(TtgirGraph, EveryCorpusFileParsesIntoItsPinnedGraph) {
  std::vector<std::string> Files = allTtgirFiles(/*WithFixtures=*/true);
  ASSERT_GE(Files.size(), 100u);
  StringMap<std::string> Pins;
  for (const std::string &Line : readLines(pinsPath())) {
    auto [Key, Rest] = StringRef(Line).split(' ');
    if (!Key.empty() && !Key.starts_with("#"))
      Pins[Key] = Rest.str();
  }
  bool Update = env("GESTELL_UPDATE_TTGIR_GRAPHS");
  const char *Dumps = env("GESTELL_TTGIR_GRAPH_DUMPS");
  std::string Written =
      "# tests/unit/TtgirGraphTest.cpp: file, xxh3 of its graph, ops, "
      "values\n";
  StringMap<bool> Seen;
  for (const std::string &F : Files) {
    SCOPED_TRACE(F);
    auto M = parseTtgir(F);
    ASSERT_TRUE(bool(M)) << toString(M.takeError());
    std::string Graph = ttgirGraph(**M);
    size_t Values = 0;
    for (const Operation *Op : (*M)->ops())
      Values += Op->Results.size();
    for (const Region *R : (*M)->regions())
      for (const Block *B : R->Blocks)
        Values += B->Args.size();
    std::string Pin = utohexstr(xxh3_64bits(Graph), /*LowerCase=*/true, 16) +
                      " " + std::to_string((*M)->ops().size()) + " " +
                      std::to_string(Values);
    std::string K = key(F);
    Seen[K] = true;
    Written += K + " " + Pin + "\n";
    if (Dumps) {
      SmallString<256> Out(Dumps);
      sys::path::append(Out, K + ".graph");
      ASSERT_FALSE(sys::fs::create_directories(sys::path::parent_path(Out)));
      ASSERT_TRUE(writeFile(std::string(Out), Graph));
    }
    if (Update)
      continue;
    auto It = Pins.find(K);
    if (It == Pins.end())
      ADD_FAILURE() << K << " has no pinned graph: a new corpus file? "
                    << "GESTELL_UPDATE_TTGIR_GRAPHS=1 writes the pins";
    else
      EXPECT_EQ(It->second, Pin)
          << K << " parses into another graph than the pinned one: the "
          << "parser or the file changed (GESTELL_TTGIR_GRAPH_DUMPS=DIR "
          << "writes each graph, to diff with the build before the change; "
          << "GESTELL_UPDATE_TTGIR_GRAPHS=1 writes the pins when the change "
          << "is meant)";
  }
  if (Update) {
    ASSERT_TRUE(writeFile(pinsPath(), Written));
    return;
  }
  for (const auto &P : Pins)
    EXPECT_TRUE(Seen.count(P.getKey()))
        << P.getKey().str() << " is pinned but is no longer in the corpus";
}

TEST(TtgirGraph, TheWriterSeesWhatTheParserBuilt) {
  // The pins are only as good as the text: a change a check could see must
  // change it. Two files that differ in one type, one use, one attribute
  // or one location each write another graph.
  auto Graph = [](StringRef Text) {
    auto M = parseTtgirText(Text, "g.ttgir");
    EXPECT_TRUE(bool(M)) << (M ? "" : toString(M.takeError()));
    return M ? ttgirGraph(**M) : std::string();
  };
  std::string Base = R"(#loc = loc("k.py":1:0)
#loc1 = loc("k.py":2:5)
module attributes {"ttg.num-warps" = 4 : i32} {
  tt.func @k(%a: i32 loc("a"(#loc)), %c: i32 loc("c"(#loc))) {
    %b = arith.addi %a, %a {tag = 1 : i32} : i32 loc(#loc1)
    tt.return loc(#loc)
  } loc(#loc)
} loc(#loc)
)";
  std::string G = Graph(Base);
  ASSERT_FALSE(G.empty());
  EXPECT_EQ(G, Graph(Base)); // no pointer, seed or order of its own
  for (auto [From, To] :
       {std::pair<StringRef, StringRef>{": i32 loc(#loc1)", ": i64 loc(#loc1)"},
        {"arith.addi %a, %a", "arith.addi %a, %c"},
        {"tag = 1", "tag = 2"},
        {"\"k.py\":2:5", "\"k.py\":2:6"}}) {
    std::string Changed = Base;
    size_t At = Changed.find(From.str());
    ASSERT_NE(At, std::string::npos) << From.str();
    Changed.replace(At, From.size(), To.str());
    EXPECT_NE(G, Graph(Changed)) << From.str() << " -> " << To.str();
  }
}
