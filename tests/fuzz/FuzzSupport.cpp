//===- FuzzSupport.cpp - What every fuzz target checks --------------------===//
#include "FuzzSupport.h"

#include "gestell/Error.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Process.h"
#include "llvm/Support/raw_ostream.h"

#include <cstdlib>
#include <optional>
#include <string>
#include <vector>

using namespace llvm;

namespace gestell::fuzz {

void fail(const Twine &What) {
  errs() << "fuzz: " << What << "\n";
  errs().flush();
  std::abort();
}

bool insideText(StringRef Text, unsigned Line, unsigned Column) {
  if (Line == 0)
    return false;
  // Line N starts after the (N-1)th newline.
  size_t Start = 0;
  for (unsigned L = 1; L < Line; ++L) {
    size_t Nl = Text.find('\n', Start);
    if (Nl == StringRef::npos)
      return false;
    Start = Nl + 1;
  }
  if (Column == 0)
    return true;
  size_t End = Text.find('\n', Start);
  size_t Length = (End == StringRef::npos ? Text.size() : End) - Start;
  return Column <= Length + 1;
}

void expectInputError(Error E, StringRef PathSuffix, StringRef Text,
                      Position Where) {
  handleAllErrors(
      std::move(E),
      [&](const InputError &IE) {
        if (!StringRef(IE.Path).ends_with(PathSuffix))
          fail("an error names '" + IE.Path + "', not the input '" +
               PathSuffix + "': " + IE.Message);
        if (IE.Message.empty())
          fail("an error without a message");
        bool Checked = Where == Position::InText ||
                       (Where == Position::FileOrText && IE.Line != 0);
        if (Checked && !insideText(Text, IE.Line, IE.Column))
          fail("an error at " + Twine(IE.Line) + ":" + Twine(IE.Column) +
               ", not a position inside the input: " + IE.Message);
      },
      [&](const ErrorInfoBase &Other) {
        fail("an error that is not an InputError (no file, line, column): " +
             Other.message());
      });
}

namespace {
/// This process's folder for input files, removed with them at exit.
struct InputFolder {
  std::string Dir;
  std::vector<std::string> Files;
  InputFolder() {
    SmallString<128> D;
    sys::path::system_temp_directory(/*ErasedOnReboot=*/true, D);
    sys::path::append(D, "gestell-fuzz-" + Twine(sys::Process::getProcessId()));
    if (std::error_code EC = sys::fs::create_directories(D))
      fail("cannot create " + D + ": " + EC.message());
    Dir = std::string(D);
  }
  ~InputFolder() {
    for (const std::string &F : Files)
      sys::fs::remove(F);
    sys::fs::remove(Dir);
  }
};
} // namespace

std::string writeInputFile(StringRef Name, StringRef Contents) {
  static InputFolder Folder;
  SmallString<128> Path(Folder.Dir);
  sys::path::append(Path, Name);
  if (!is_contained(Folder.Files, Path))
    Folder.Files.push_back(std::string(Path));
  std::error_code EC;
  raw_fd_ostream OS(Path, EC);
  if (EC)
    fail("cannot write " + Path + ": " + EC.message());
  OS << Contents;
  OS.close();
  if (OS.has_error())
    fail("cannot write " + Path);
  return std::string(Path);
}

void expectCountsReadBack(const StageCounts &C) {
  std::optional<std::string> Prev;
  uint64_t Total = 0;
  for (const OpcodeCount &E : C.Opcodes) {
    if (Prev && !(StringRef(*Prev) < E.Opcode))
      fail("opcode counts out of order at '" + E.Opcode + "'");
    if (!(C.Opcodes.lookup(E.Opcode) == E.N))
      fail("lookup('" + E.Opcode + "') disagrees with the count kept");
    Total += E.N.Total;
    Prev = E.Opcode.str();
  }
  if (Total != C.Instructions.Total)
    fail("opcode totals sum to " + Twine(Total) + ", not " +
         Twine(C.Instructions.Total));
}

} // namespace gestell::fuzz
