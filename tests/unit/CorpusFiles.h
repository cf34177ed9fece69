//===- CorpusFiles.h - Finding real artifacts for the parser tests --------===//
//
// Test-only helpers: where the corpus is (GESTELL_TEST_CORPUS, or the
// directory in $GESTELL_VERIFY_CORPUS so tools/verify_corpus.sh can run the
// same checks over another corpus), the kernels in it, and plain file
// reading for counts made independently of the parsers.
//
//===----------------------------------------------------------------------===//
#ifndef GESTELL_TESTS_CORPUSFILES_H
#define GESTELL_TESTS_CORPUSFILES_H

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"

#include <algorithm>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

namespace gestell::test {

/// The corpus the corpus-wide tests walk.
inline std::string corpusRoot() {
  if (const char *Env = std::getenv("GESTELL_VERIFY_CORPUS"))
    if (*Env)
      return Env;
  return GESTELL_TEST_CORPUS;
}

/// One kernel: a directory and a stem, with the text stages that exist.
struct CorpusKernel {
  std::string Dir, Stem;
  std::string Ptx, Sass, CuobjdumpSass; ///< "" when absent
  std::string label() const { return Dir + "/" + Stem; }
};

/// Every kernel with a .ptx, .sass or .cuobjdump.sass under Root, sorted.
inline std::vector<CorpusKernel> corpusKernels(const std::string &Root) {
  std::vector<std::string> Files;
  std::error_code EC;
  for (llvm::sys::fs::recursive_directory_iterator It(Root, EC), E;
       It != E && !EC; It.increment(EC))
    if (It->type() == llvm::sys::fs::file_type::regular_file)
      Files.push_back(It->path());
  std::sort(Files.begin(), Files.end());
  std::vector<CorpusKernel> Out;
  auto KernelFor = [&](llvm::StringRef Dir,
                       llvm::StringRef Stem) -> CorpusKernel & {
    for (CorpusKernel &K : Out)
      if (K.Dir == Dir && K.Stem == Stem)
        return K;
    Out.push_back({Dir.str(), Stem.str(), "", "", ""});
    return Out.back();
  };
  for (const std::string &F : Files) {
    llvm::StringRef Name = llvm::sys::path::filename(F);
    llvm::StringRef Dir = llvm::sys::path::parent_path(F);
    if (Name.consume_back(".cuobjdump.sass"))
      KernelFor(Dir, Name).CuobjdumpSass = F;
    else if (Name.consume_back(".sass"))
      KernelFor(Dir, Name).Sass = F;
    else if (Name.consume_back(".ptx"))
      KernelFor(Dir, Name).Ptx = F;
  }
  std::sort(Out.begin(), Out.end(),
            [](const CorpusKernel &A, const CorpusKernel &B) {
              return A.label() < B.label();
            });
  return Out;
}

/// Every .ttgir under tests/corpus and, with WithFixtures, tests/fixtures,
/// sorted by path.
inline std::vector<std::string> allTtgirFiles(bool WithFixtures) {
  std::vector<std::string> Files;
  std::vector<std::string> Roots = {GESTELL_TEST_CORPUS};
  if (WithFixtures)
    Roots.push_back(std::string(GESTELL_TEST_CORPUS) + "/../fixtures");
  for (const std::string &Root : Roots) {
    std::error_code EC;
    for (llvm::sys::fs::recursive_directory_iterator It(Root, EC), End;
         It != End && !EC; It.increment(EC))
      if (llvm::StringRef(It->path()).ends_with(".ttgir"))
        Files.push_back(It->path());
  }
  std::sort(Files.begin(), Files.end());
  return Files;
}

inline std::string readFile(const std::string &Path) {
  std::ifstream In(Path, std::ios::binary);
  std::stringstream SS;
  SS << In.rdbuf();
  return SS.str();
}

inline std::vector<std::string> readLines(const std::string &Path) {
  std::vector<std::string> Lines;
  std::ifstream In(Path, std::ios::binary);
  for (std::string L; std::getline(In, L);)
    Lines.push_back(L);
  return Lines;
}

/// A source file named by debug info (an absolute path from the compile
/// machine, "/src/kernels/triton_kernels.py"), found inside the corpus: the
/// path is looked up under each directory from Dir up to the corpus root.
inline std::string findSource(llvm::StringRef DebugPath, llvm::StringRef Dir,
                              llvm::StringRef Root) {
  llvm::StringRef Rel = DebugPath.ltrim('/');
  for (llvm::StringRef D = Dir; D.size() >= Root.size();
       D = llvm::sys::path::parent_path(D)) {
    llvm::SmallString<256> P(D);
    llvm::sys::path::append(P, Rel);
    if (llvm::sys::fs::is_regular_file(P))
      return std::string(P);
    if (D == Root)
      break;
  }
  return "";
}

/// A fresh directory for files a test makes (removed by the caller).
inline std::string makeTempDir(llvm::StringRef Prefix) {
  llvm::SmallString<128> P;
  if (llvm::sys::fs::createUniqueDirectory(Prefix, P))
    return "";
  return std::string(P);
}

/// A fresh directory for files a test makes, removed with the object
/// (Path is "" when it could not be made).
struct TempDir {
  explicit TempDir(llvm::StringRef Prefix) : Path(makeTempDir(Prefix)) {}
  ~TempDir() {
    if (!Path.empty())
      llvm::sys::fs::remove_directories(Path);
  }
  TempDir(const TempDir &) = delete;
  TempDir &operator=(const TempDir &) = delete;
  std::string Path;
};

inline bool writeFile(const std::string &Path, llvm::StringRef Data) {
  std::ofstream Out(Path, std::ios::binary);
  Out.write(Data.data(), Data.size());
  return bool(Out);
}

} // namespace gestell::test

#endif
