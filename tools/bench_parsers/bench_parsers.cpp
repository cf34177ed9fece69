//===- bench_parsers.cpp - MB/s of the PTX and SASS parsers ---------------===//
//
// Usage: bench_parsers CORPUS_DIR [SECONDS]
//
// Finds every .ptx, .sass and .ttgir file under CORPUS_DIR, reads them into
// memory once, tells the SASS files apart by content (nvdisasm or
// cuobjdump), and parses each group over and over for at least SECONDS
// (default 1) per parser. Prints MB/s (10^6 bytes) and instructions/s (ops/s
// for the TTGIR, layout verification included) per parser for the fastest
// pass, parsing from memory (the parser alone) and from the files (open +
// read + checks + parse), next to one memchr pass counting lines over the
// same bytes. One thread.
//
//===----------------------------------------------------------------------===//
#include "gestell/Ptx.h"
#include "gestell/Sass.h"
#include "gestell/Ttgir.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>
#include <chrono>
#include <cstring>
#include <string>
#include <type_traits>
#include <vector>

using namespace llvm;
using namespace gestell;

namespace {

enum class Parser { Ptx, Sass, Ttgir };

struct Group {
  const char *Name;
  Parser Kind;
  std::vector<std::string> Paths;
  std::vector<std::unique_ptr<MemoryBuffer>> Data;
  size_t Bytes = 0;
};

using Clock = std::chrono::steady_clock;

/// Runs Body (one pass over a group, returning what it counted) until
/// MinSeconds have passed, at least three times; returns the fastest pass in
/// seconds (the machine is shared: the minimum is the stable figure).
template <typename F>
double timePasses(double MinSeconds, size_t &Items, F Body) {
  unsigned Passes = 0;
  double Best = 1e30, Total = 0;
  do {
    auto Start = Clock::now();
    Items = Body();
    double S = std::chrono::duration<double>(Clock::now() - Start).count();
    Best = std::min(Best, S);
    Total += S;
    ++Passes;
  } while (Total < MinSeconds || Passes < 3);
  return Best;
}

void report(const char *What, const Group &G, double Seconds, size_t Items,
            const char *Unit) {
  outs() << format("  %-20s %9.1f MB/s %13.0f %s/s  (%.2f ms/pass)\n", What,
                   G.Bytes / Seconds / 1e6, Items / Seconds, Unit,
                   Seconds * 1e3);
}

/// The number of instructions (ops for the TTGIR) of a parsed module; a
/// failure is printed and counted.
template <typename ModuleT> size_t count(ModuleT &&M, int &Failures) {
  if (!M) {
    errs() << toString(M.takeError()) << "\n";
    ++Failures;
    return 0;
  }
  if constexpr (std::is_same_v<std::decay_t<decltype(**M)>, TtgirModule>)
    return (*M)->ops().size();
  else
    return (*M)->instructionCount();
}

/// Parses file I of G, from its bytes in memory or from its path, and
/// counts it (count).
size_t parseOne(const Group &G, size_t I, bool FromMemory, int &Failures) {
  const std::string &Path = G.Paths[I];
  StringRef Text = G.Data[I]->getBuffer();
  auto InMemory = [&] { return MemoryBuffer::getMemBuffer(Text, Path, false); };
  switch (G.Kind) {
  case Parser::Ptx:
    return FromMemory ? count(parsePtx(InMemory(), Path), Failures)
                      : count(parsePtx(Path), Failures);
  case Parser::Sass:
    return FromMemory ? count(parseSass(InMemory(), Path), Failures)
                      : count(parseSass(Path), Failures);
  case Parser::Ttgir: // from memory, the text is copied into the module
    return FromMemory ? count(parseTtgirText(Text, Path), Failures)
                      : count(parseTtgir(Path), Failures);
  }
  return 0;
}

/// Times G's parser from memory, from its files, and a memchr line count;
/// returns the number of files that did not parse.
int benchGroup(const Group &G, double MinSeconds) {
  int Failures = 0;
  const char *Unit = G.Kind == Parser::Ttgir ? "op" : "inst";
  size_t Insts = 0;
  for (bool FromMemory : {true, false}) {
    double Best = timePasses(MinSeconds, Insts, [&] {
      size_t N = 0;
      for (size_t I = 0; I < G.Paths.size(); ++I)
        N += parseOne(G, I, FromMemory, Failures);
      return N;
    });
    report(FromMemory ? "parse from memory" : "parse from file", G, Best, Insts,
           Unit);
  }
  size_t Lines = 0;
  double Scan = timePasses(MinSeconds, Lines, [&] {
    size_t N = 0;
    for (const auto &B : G.Data) {
      const char *P = B->getBufferStart(), *E = B->getBufferEnd();
      while (const void *NL = memchr(P, '\n', E - P)) {
        ++N;
        P = static_cast<const char *>(NL) + 1;
      }
    }
    return N;
  });
  report("memchr line count", G, Scan, Lines, "line");
  return Failures;
}

/// Reads every .ptx, .sass and .ttgir file under Dir into its group.
bool readCorpus(StringRef Dir, Group &Ptx, Group &Nv, Group &Cu, Group &Tg) {
  std::error_code EC;
  std::vector<std::string> Files;
  for (sys::fs::recursive_directory_iterator It(Dir, EC), E; It != E && !EC;
       It.increment(EC))
    if (It->type() == sys::fs::file_type::regular_file)
      Files.push_back(It->path());
  if (EC) {
    errs() << "bench_parsers: " << Dir << ": " << EC.message() << "\n";
    return false;
  }
  std::sort(Files.begin(), Files.end());
  for (const std::string &P : Files) {
    bool IsPtx = StringRef(P).ends_with(".ptx");
    bool IsTtgir = StringRef(P).ends_with(".ttgir");
    if (!IsPtx && !IsTtgir && !StringRef(P).ends_with(".sass"))
      continue;
    auto Buf = MemoryBuffer::getFile(P, false, false);
    if (!Buf) {
      errs() << "bench_parsers: " << P << ": " << Buf.getError().message()
             << "\n";
      return false;
    }
    Group *G = IsPtx ? &Ptx : &Tg;
    if (!IsPtx && !IsTtgir) {
      auto Fmt = detectSassFormat((*Buf)->getBuffer());
      if (!Fmt)
        continue;
      G = *Fmt == SassFormat::Nvdisasm ? &Nv : &Cu;
    }
    G->Bytes += (*Buf)->getBufferSize();
    G->Paths.push_back(P);
    G->Data.push_back(std::move(*Buf));
  }
  return true;
}

} // namespace

int main(int argc, char **argv) {
  if (argc < 2) {
    errs() << "usage: bench_parsers CORPUS_DIR [SECONDS]\n";
    return 2;
  }
  double MinSeconds = argc > 2 ? std::atof(argv[2]) : 1.0;
  Group Ptx{"PTX", Parser::Ptx, {}, {}, 0},
      Nv{"SASS nvdisasm", Parser::Sass, {}, {}, 0},
      Cu{"SASS cuobjdump", Parser::Sass, {}, {}, 0},
      Tg{"TTGIR", Parser::Ttgir, {}, {}, 0};
  if (!readCorpus(argv[1], Ptx, Nv, Cu, Tg))
    return 2;
  outs() << "bench_parsers: " << argv[1] << "\n";
  int Failures = 0;
  for (const Group *G : {&Ptx, &Nv, &Cu, &Tg}) {
    outs() << format("%s: %zu files, %.2f MB\n", G->Name, G->Paths.size(),
                     G->Bytes / 1e6);
    if (!G->Paths.empty())
      Failures += benchGroup(*G, MinSeconds);
  }
  return Failures ? 1 : 0;
}
