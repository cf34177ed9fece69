//===- Nvdisasm.cpp - SASS from a cubin, into the tool's own cache --------===//
//
// Finding nvdisasm (option, PATH, an installed triton package) and running
// it into <cache>/sass/<nvdisasm id>/<xxh3 of cubin>.sass. The file is
// written under a unique temporary name in the same folder and renamed into
// place, so concurrent runs and threads never see a partial file, and a
// crash leaves at most a stray .tmp.
//
//===----------------------------------------------------------------------===//
#include "gestell/Error.h"
#include "gestell/Input.h"
#include "gestell/KernelView.h"

#include "llvm/ADT/SmallString.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/Chrono.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FileUtilities.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Process.h"
#include "llvm/Support/Program.h"
#include "llvm/Support/xxhash.h"

using namespace llvm;

namespace gestell {

std::string defaultCacheDir() {
  SmallString<256> Dir;
  if (std::optional<std::string> X = sys::Process::GetEnv("XDG_CACHE_HOME");
      X && !X->empty() && sys::path::is_absolute(*X)) {
    Dir = *X;
  } else if (!sys::path::home_directory(Dir)) {
    // No home: a per-user folder in the temporary directory.
    sys::path::system_temp_directory(/*ErasedOnReboot=*/true, Dir);
    sys::path::append(Dir, "gestell-cache");
    return std::string(Dir);
  } else {
    sys::path::append(Dir, ".cache");
  }
  sys::path::append(Dir, "gestell");
  return std::string(Dir);
}

namespace {
constexpr StringRef TritonRel = "triton/backends/nvidia/bin/nvdisasm";

bool isExecutableFile(StringRef Path) {
  return sys::fs::is_regular_file(Path) && sys::fs::can_execute(Path);
}

/// <Prefix>/lib/python3*/{site,dist}-packages/<TritonRel>, first in name
/// order (Debian's system Python uses dist-packages).
std::optional<std::string> inPythonPrefix(StringRef Prefix) {
  SmallString<256> Lib(Prefix);
  sys::path::append(Lib, "lib");
  std::error_code EC;
  std::vector<std::string> Found;
  for (sys::fs::directory_iterator It(Lib, EC), End; It != End && !EC;
       It.increment(EC)) {
    StringRef Name = sys::path::filename(It->path());
    if (!Name.starts_with("python3"))
      continue;
    for (StringRef Packages : {"site-packages", "dist-packages"}) {
      SmallString<256> P(It->path());
      sys::path::append(P, Packages, TritonRel);
      if (isExecutableFile(P))
        Found.push_back(std::string(P));
    }
  }
  llvm::sort(Found);
  if (Found.empty())
    return std::nullopt;
  return Found.front();
}

/// Prefixes where a triton package may be installed, most specific first:
/// the active virtual environment or conda environment, the environment of
/// the python3 on PATH (<prefix>/bin/python3), the user site, the system.
/// Only file names are looked at: no Python is run.
std::vector<std::string> pythonPrefixes() {
  std::vector<std::string> Out;
  for (const char *Var : {"VIRTUAL_ENV", "CONDA_PREFIX"})
    if (std::optional<std::string> P = sys::Process::GetEnv(Var))
      if (!P->empty())
        Out.push_back(*P);
  for (StringRef Name : {"python3", "python"})
    if (ErrorOr<std::string> Py = sys::findProgramByName(Name)) {
      // Follow links (/usr/bin/python3 -> python3.11) but keep the
      // environment: a venv's bin/python3 links to the base interpreter.
      SmallString<256> Bin(sys::path::parent_path(*Py));
      Out.push_back(std::string(sys::path::parent_path(Bin)));
      SmallString<256> Real;
      if (!sys::fs::real_path(*Py, Real))
        Out.push_back(
            std::string(sys::path::parent_path(sys::path::parent_path(Real))));
    }
  SmallString<256> Home;
  if (sys::path::home_directory(Home)) {
    sys::path::append(Home, ".local");
    Out.push_back(std::string(Home));
  }
  Out.push_back("/usr/local");
  Out.push_back("/usr");
  return Out;
}

std::string absolute(StringRef Path) {
  SmallString<256> Abs(Path);
  sys::fs::make_absolute(Abs);
  return std::string(Abs);
}
} // namespace

Expected<NvdisasmLookup> findNvdisasm(StringRef Explicit) {
  NvdisasmLookup L;
  if (!Explicit.empty()) {
    if (!isExecutableFile(Explicit))
      return inputError(Explicit, "--nvdisasm: not an executable file");
    L.Path = absolute(Explicit);
    L.Origin = "--nvdisasm";
    return L;
  }
  if (ErrorOr<std::string> P = sys::findProgramByName("nvdisasm")) {
    L.Path = absolute(*P);
    L.Origin = "PATH";
    return L;
  }
  for (const std::string &Prefix : pythonPrefixes())
    if (std::optional<std::string> P = inPythonPrefix(Prefix)) {
      L.Path = *P;
      L.Origin = "triton package";
      return L;
    }
  L.WhyNot = "no nvdisasm: none given with --nvdisasm, none on PATH, no "
             "triton package carrying one ($VIRTUAL_ENV, $CONDA_PREFIX, the "
             "python3 on PATH, ~/.local, /usr/local, /usr)";
  return L;
}

Expected<AnalysisOptions> analysisOptions(StringRef ExplicitNvdisasm) {
  Expected<NvdisasmLookup> L = findNvdisasm(ExplicitNvdisasm);
  if (!L)
    return L.takeError();
  AnalysisOptions Opts;
  Opts.CacheDir = defaultCacheDir();
  Opts.Nvdisasm = L->Path;
  if (L->Path.empty())
    Opts.NvdisasmMissing = L->WhyNot;
  return Opts;
}

namespace {
/// Identifies an nvdisasm binary: path, size and modification time.
Expected<std::string> toolId(StringRef Nvdisasm) {
  sys::fs::file_status St;
  if (std::error_code EC = sys::fs::status(Nvdisasm, St))
    return inputError(Nvdisasm, "cannot read nvdisasm: " + EC.message());
  std::string Key = (Nvdisasm + "\n" + Twine(St.getSize()) + "\n" +
                     Twine(sys::toTimeT(St.getLastModificationTime())))
                        .str();
  return utohexstr(xxh3_64bits(Key), /*LowerCase=*/true, /*Width=*/16);
}

std::string firstLine(StringRef Path) {
  auto Buf = MemoryBuffer::getFile(Path);
  if (!Buf)
    return {};
  return (*Buf)->getBuffer().trim().split('\n').first.trim().str();
}
} // namespace

Expected<std::string> disassembleCubin(StringRef CubinPath, StringRef Nvdisasm,
                                       StringRef CacheDir) {
  Expected<std::unique_ptr<MemoryBuffer>> Cubin =
      openArtifact(CubinPath, Content::Binary);
  if (!Cubin)
    return Cubin.takeError();
  // Keyed by content, never by file identity (path, size, time): a CI cache
  // restore can bring back other bytes with the same size and time. XXH3
  // reads a cubin at memory speed, where SHA-256 cost as much as the rest
  // of `gestell stats` on a warm cache.
  std::string Hash =
      utohexstr(xxh3_64bits(arrayRefFromStringRef((*Cubin)->getBuffer())),
                /*LowerCase=*/true, /*Width=*/16);
  Cubin->reset(); // the bytes are not needed any more

  Expected<std::string> Tool = toolId(Nvdisasm);
  if (!Tool)
    return Tool.takeError();
  SmallString<256> Dir(CacheDir);
  sys::path::append(Dir, "sass", *Tool);
  SmallString<256> Final(Dir);
  sys::path::append(Final, Hash + ".sass");
  if (sys::fs::exists(Final))
    return std::string(Final);

  if (std::error_code EC = sys::fs::create_directories(Dir))
    return inputError(Dir,
                      "cannot create the cache directory: " + EC.message());
  SmallString<256> Tmp, ErrTmp;
  int FD;
  if (std::error_code EC = sys::fs::createUniqueFile(
          Dir + "/" + Hash + "-%%%%%%%%.tmp", FD, Tmp))
    return inputError(Dir,
                      "cannot write in the cache directory: " + EC.message());
  sys::Process::SafelyCloseFileDescriptor(FD);
  FileRemover RemoveTmp(Tmp); // disarmed once renamed into place
  if (std::error_code EC = sys::fs::createUniqueFile(
          Dir + "/" + Hash + "-%%%%%%%%.err", FD, ErrTmp))
    return inputError(Dir,
                      "cannot write in the cache directory: " + EC.message());
  sys::Process::SafelyCloseFileDescriptor(FD);
  FileRemover RemoveErr(ErrTmp);

  StringRef Args[] = {Nvdisasm, "-c", "-gi", CubinPath};
  std::optional<StringRef> Redirects[] = {StringRef(""), StringRef(Tmp),
                                          StringRef(ErrTmp)};
  std::string ErrMsg;
  int RC =
      sys::ExecuteAndWait(Nvdisasm, Args, std::nullopt, Redirects,
                          /*SecondsToWait=*/300, /*MemoryLimit=*/0, &ErrMsg);
  if (RC != 0) {
    std::string Why = firstLine(ErrTmp);
    // An nvdisasm older than the cubin's architecture (Triton 3.6 ships
    // CUDA 12.8's, which compiles sm_103a and sm_121a but cannot decode
    // them) leaves the kernel without SASS, like having no nvdisasm: the
    // checks that read SASS skip it and the run says why, once.
    StringRef Said = "Cannot decode architecture";
    if (size_t At = Why.find(Said); RC > 0 && At != std::string::npos)
      return make_error<MissingStage>(
          Stage::SASS, "",
          ("no .sass file beside the cubin, and nvdisasm (" + Nvdisasm +
           ") cannot decode architecture" + Why.substr(At + Said.size()) +
           ": a newer CUDA's nvdisasm can (--nvdisasm=PATH)")
              .str());
    if (Why.empty())
      Why = RC < 0 ? ErrMsg : "exit status " + std::to_string(RC);
    return inputError(CubinPath, "nvdisasm (" + Nvdisasm + ") failed: " + Why);
  }
  uint64_t Size = 0;
  if (sys::fs::file_size(Tmp, Size) || Size == 0)
    return inputError(CubinPath, "nvdisasm (" + Nvdisasm + ") printed nothing");
  if (std::error_code EC = sys::fs::rename(Tmp, Final))
    return inputError(Final,
                      "cannot write in the cache directory: " + EC.message());
  RemoveTmp.releaseFile();
  return std::string(Final);
}

} // namespace gestell
