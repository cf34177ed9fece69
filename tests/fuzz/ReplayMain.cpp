//===- ReplayMain.cpp - A fuzz target's inputs, replayed without libFuzzer ===//
//
// The main() of every fuzz target in the default build (gcc, no libFuzzer):
// each argument is a file or a folder whose files (recursively, in name
// order) are fed to LLVMFuzzerTestOneInput one at a time, each in a buffer
// of exactly its size, so a sanitizer catches a read past the end. ctest
// runs it on the target's corpus (fuzz.replay.<target>); a folder without
// inputs is a failure, so a corpus that went missing does not pass.
//
//===----------------------------------------------------------------------===//
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <memory>
#include <string>
#include <system_error>
#include <vector>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *Data, size_t Size);
extern "C" int LLVMFuzzerInitialize(int *Argc, char ***Argv)
    __attribute__((weak));

namespace fs = std::filesystem;

static bool readFile(const fs::path &P, std::vector<char> &Out) {
  std::ifstream In(P, std::ios::binary);
  if (!In)
    return false;
  Out.assign(std::istreambuf_iterator<char>(In),
             std::istreambuf_iterator<char>());
  return !In.bad();
}

int main(int Argc, char **Argv) {
  if (LLVMFuzzerInitialize)
    LLVMFuzzerInitialize(&Argc, &Argv);
  if (Argc < 2) {
    std::fprintf(stderr, "usage: %s FILE|FOLDER...\n", Argv[0]);
    return 2;
  }
  std::vector<fs::path> Inputs;
  for (int I = 1; I < Argc; ++I) {
    fs::path P(Argv[I]);
    std::error_code EC;
    if (fs::is_directory(P, EC)) {
      for (const fs::directory_entry &E :
           fs::recursive_directory_iterator(P, EC))
        if (E.is_regular_file())
          Inputs.push_back(E.path());
    } else if (fs::is_regular_file(P, EC)) {
      Inputs.push_back(P);
    } else {
      std::fprintf(stderr, "%s: cannot read %s\n", Argv[0], Argv[I]);
      return 2;
    }
  }
  std::sort(Inputs.begin(), Inputs.end());
  if (Inputs.empty()) {
    std::fprintf(stderr, "%s: no inputs\n", Argv[0]);
    return 2;
  }
  std::vector<char> Bytes;
  for (const fs::path &P : Inputs) {
    if (!readFile(P, Bytes)) {
      std::fprintf(stderr, "%s: cannot read %s\n", Argv[0], P.c_str());
      return 2;
    }
    // Exactly Size bytes on the heap: no terminator to lean on.
    std::unique_ptr<uint8_t[]> Copy(new uint8_t[Bytes.size() + !Bytes.size()]);
    std::copy(Bytes.begin(), Bytes.end(), Copy.get());
    std::fprintf(stderr, "%s\n", P.c_str());
    LLVMFuzzerTestOneInput(Copy.get(), Bytes.size());
  }
  std::fprintf(stderr, "replayed %zu inputs\n", Inputs.size());
  return 0;
}
