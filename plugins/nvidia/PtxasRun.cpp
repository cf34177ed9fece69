//===- PtxasRun.cpp - Re-running ptxas -v for the messages Triton drops ---===//
#include "PtxasRun.h"

#include "gestell/Error.h"
#include "gestell/Input.h"
#include "gestell/Trace.h"

#include "llvm/ADT/SmallString.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Program.h"
#include "llvm/Support/raw_ostream.h"

#include <optional>
#include <set>

using namespace llvm;

namespace gestell::nvidia {

std::vector<PtxasMessage> parsePtxasMessages(StringRef Output) {
  std::vector<PtxasMessage> Out;
  std::set<std::string> Seen;
  SmallVector<StringRef, 32> Lines;
  Output.split(Lines, '\n');
  for (StringRef Line : Lines) {
    // "ptxas info    : (C7515) Potential Performance Loss: ..."
    size_t Open = Line.find("(C75");
    if (Open == StringRef::npos || Open + 7 > Line.size() ||
        Line[Open + 6] != ')' || !isDigit(Line[Open + 4]) ||
        !isDigit(Line[Open + 5]))
      continue;
    PtxasMessage M;
    M.Code = Line.substr(Open + 1, 5).str();
    M.Text = Line.substr(Open + 7).trim().str();
    std::string Lower = StringRef(M.Text).lower();
    if (StringRef(Lower).contains("setmaxnreg"))
      M.Topic = "setmaxnreg";
    else if (StringRef(Lower).contains("wgmma") ||
             StringRef(Lower).contains("warpgroup"))
      M.Topic = "wgmma";
    if (Seen.insert(M.Code + M.Text).second)
      Out.push_back(std::move(M));
  }
  return Out;
}

Expected<std::string> findPtxas(StringRef Option) {
  if (Option.contains('/')) {
    if (!sys::fs::can_execute(Option) || sys::fs::is_directory(Option))
      return inputError(Option, "ptxas: not an executable file");
    SmallString<256> Abs(Option);
    sys::fs::make_absolute(Abs);
    return std::string(Abs);
  }
  ErrorOr<std::string> P = sys::findProgramByName(Option);
  if (!P)
    return createStringError(P.getError(),
                             "ptxas: no '" + Option + "' on PATH");
  return *P;
}

namespace {
/// Removes a folder and what it holds when it goes out of scope.
struct TempDir {
  SmallString<256> Path;
  ~TempDir() {
    if (!Path.empty())
      sys::fs::remove_directories(Path, /*IgnoreErrors=*/true);
  }
};

std::string readWhole(StringRef Path) {
  ErrorOr<std::unique_ptr<MemoryBuffer>> B = MemoryBuffer::getFile(Path);
  return B ? (*B)->getBuffer().str() : std::string();
}
} // namespace

Expected<std::string> runPtxas(StringRef Ptxas, StringRef PtxPath,
                               StringRef Arch, unsigned TimeoutSeconds) {
  TempDir Dir;
  if (std::error_code EC =
          sys::fs::createUniqueDirectory("gestell-ptxas", Dir.Path))
    return inputError(PtxPath, "cannot make a temporary folder for ptxas: " +
                                   EC.message());
  SmallString<256> Cubin(Dir.Path), Out(Dir.Path), Err(Dir.Path);
  sys::path::append(Cubin, "out.cubin");
  sys::path::append(Out, "stdout.txt");
  sys::path::append(Err, "stderr.txt");
  // The PTX of a TritonParse trace is no file: ptxas reads a copy.
  std::string Input = PtxPath.str();
  if (tracePlace(PtxPath)) {
    Expected<std::unique_ptr<MemoryBuffer>> Ptx =
        openArtifact(PtxPath, Content::Text);
    if (!Ptx)
      return Ptx.takeError();
    SmallString<256> Copy(Dir.Path);
    sys::path::append(Copy, "kernel.ptx");
    std::error_code EC;
    raw_fd_ostream OS(Copy, EC);
    if (EC)
      return inputError(PtxPath,
                        "cannot write a copy for ptxas: " + EC.message());
    OS << (*Ptx)->getBuffer();
    OS.close();
    Input = std::string(Copy);
  }
  std::string GpuName = ("--gpu-name=" + Arch).str();
  StringRef Args[] = {Ptxas, "-v", GpuName, Input, "-o", Cubin};
  std::optional<StringRef> Redirects[] = {StringRef(""), StringRef(Out),
                                          StringRef(Err)};
  std::string ErrMsg;
  bool Failed = false;
  int RC =
      sys::ExecuteAndWait(Ptxas, Args, std::nullopt, Redirects, TimeoutSeconds,
                          /*MemoryLimit=*/0, &ErrMsg, &Failed);
  std::string Text = readWhole(Out) + readWhole(Err);
  if (Failed || RC != 0) {
    StringRef Why = StringRef(Text).trim();
    std::string First =
        Why.empty()
            ? (RC == -2 ? "timed out after " + utostr(TimeoutSeconds) + " s"
               : ErrMsg.empty() ? "exit status " + itostr(RC)
                                : ErrMsg)
            : Why.split('\n').first.trim().str();
    return inputError(PtxPath, "ptxas (" + Ptxas + " --gpu-name=" + Arch +
                                   ") failed: " + First);
  }
  return Text;
}

} // namespace gestell::nvidia
