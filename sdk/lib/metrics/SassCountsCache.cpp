//===- SassCountsCache.cpp - SASS counts kept beside cached SASS ----------===//
//
// The file, text, one item a line:
//
//   gestell-sass-counts 1
//   functions F
//   loops L
//   never N
//   instructions TOTAL IN_LOOPS
//   other TOTAL IN_LOOPS
//   families K            then K lines "TOTAL IN_LOOPS", in table order
//   opcodes M             then M lines "TOTAL IN_LOOPS OPCODE", sorted
//   end
//
// Read strictly: anything else (another version, a short or edited file) is
// no counts, and the listing is parsed.
//
//===----------------------------------------------------------------------===//
#include "metrics/SassCountsCache.h"

#include "gestell/Input.h"

#include "llvm/ADT/SmallString.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"
#include "llvm/Support/xxhash.h"

#include <cstring>
#include <elf.h>
#include <link.h>

using namespace llvm;

namespace gestell {

namespace {

constexpr StringRef Magic = "gestell-sass-counts 1";

/// The GNU build ID of the object that holds this code (libgestell), hex;
/// "" when it has none.
std::string buildIdOfThisObject() {
  struct Search {
    uintptr_t Addr;
    std::string Id;
  } S{reinterpret_cast<uintptr_t>(&buildIdOfThisObject), ""};
  dl_iterate_phdr(
      [](dl_phdr_info *Info, size_t, void *Data) -> int {
        Search &S = *static_cast<Search *>(Data);
        bool Holds = false;
        for (int I = 0; I < Info->dlpi_phnum && !Holds; ++I) {
          const ElfW(Phdr) &P = Info->dlpi_phdr[I];
          uintptr_t Begin = Info->dlpi_addr + P.p_vaddr;
          Holds = P.p_type == PT_LOAD && S.Addr >= Begin &&
                  S.Addr < Begin + P.p_memsz;
        }
        if (!Holds)
          return 0;
        for (int I = 0; I < Info->dlpi_phnum; ++I) {
          const ElfW(Phdr) &P = Info->dlpi_phdr[I];
          if (P.p_type != PT_NOTE)
            continue;
          const char *Note =
              reinterpret_cast<const char *>(Info->dlpi_addr + P.p_vaddr);
          const char *End = Note + P.p_memsz;
          while (End - Note >= ptrdiff_t(sizeof(ElfW(Nhdr)))) {
            ElfW(Nhdr) H;
            std::memcpy(&H, Note, sizeof(H));
            const char *Name = Note + sizeof(H);
            const char *Desc = Name + alignTo(H.n_namesz, 4);
            const char *Next = Desc + alignTo(H.n_descsz, 4);
            if (Next > End)
              break;
            if (H.n_type == NT_GNU_BUILD_ID && H.n_namesz == 4 &&
                std::memcmp(Name, "GNU", 4) == 0 && H.n_descsz) {
              S.Id = toHex(StringRef(Desc, H.n_descsz), /*LowerCase=*/true);
              return 1;
            }
            Note = Next;
          }
        }
        return 1; // this object, without a build ID
      },
      &S);
  return S.Id;
}

const std::string &buildId() {
  static const std::string Id = buildIdOfThisObject();
  return Id;
}

/// The words of Line, which must be Want of them.
bool words(StringRef Line, size_t Want, SmallVectorImpl<StringRef> &Out) {
  Out.clear();
  Line.split(Out, ' ', -1, /*KeepEmpty=*/true);
  return Out.size() == Want;
}

bool number(StringRef Text, uint64_t &Out) {
  return !Text.empty() && isDigit(Text[0]) && !Text.getAsInteger(10, Out);
}

/// "NAME VALUE" into V.
bool named(StringRef Line, StringRef Name, uint64_t &V) {
  SmallVector<StringRef, 3> W;
  return words(Line, 2, W) && W[0] == Name && number(W[1], V);
}

/// "TOTAL IN_LOOPS" (Prefix: "NAME TOTAL IN_LOOPS") into C.
bool count(StringRef Line, StringRef Prefix, Count &C) {
  SmallVector<StringRef, 4> W;
  size_t At = Prefix.empty() ? 0 : 1;
  return words(Line, At + 2, W) && (Prefix.empty() || W[0] == Prefix) &&
         number(W[At], C.Total) && number(W[At + 1], C.InLoops) &&
         C.InLoops <= C.Total;
}

} // namespace

std::string sassCountsPath(StringRef SassPath, const FamilyTable &T) {
  if (buildId().empty())
    return "";
  std::string Key = buildId() + "-" + utohexstr(T.digest(), true, 16);
  SmallString<256> P(SassPath);
  sys::path::replace_extension(
      P,
      utohexstr(xxh3_64bits(arrayRefFromStringRef(Key)), true, 16) + ".counts");
  return std::string(P);
}

std::optional<StageCounts> readSassCounts(StringRef SassPath,
                                          const FamilyTable &T) {
  std::string Path = sassCountsPath(SassPath, T);
  if (Path.empty())
    return std::nullopt;
  Expected<std::unique_ptr<MemoryBuffer>> Buf =
      openArtifact(Path, Content::Text);
  if (!Buf) { // none kept yet, mostly
    consumeError(Buf.takeError());
    return std::nullopt;
  }
  SmallVector<StringRef, 64> Lines;
  (*Buf)->getBuffer().split(Lines, '\n');
  size_t L = 0;
  auto Next = [&]() -> StringRef {
    return L < Lines.size() ? Lines[L++] : StringRef("\x01");
  };
  StageCounts C;
  C.Of = Isa::SASS;
  uint64_t Functions = 0, Loops = 0, Families = 0, Opcodes = 0;
  if (Next() != Magic || !named(Next(), "functions", Functions) ||
      !named(Next(), "loops", Loops) ||
      !named(Next(), "never", C.NeverExecuted) ||
      !count(Next(), "instructions", C.Instructions) ||
      !count(Next(), "other", C.Other) ||
      !named(Next(), "families", Families) || Families != T.families().size() ||
      Functions > UINT32_MAX || Loops > UINT32_MAX)
    return std::nullopt;
  C.Functions = unsigned(Functions);
  C.Loops = unsigned(Loops);
  C.Families.resize(Families);
  for (Count &F : C.Families)
    if (!count(Next(), "", F))
      return std::nullopt;
  if (!named(Next(), "opcodes", Opcodes) || Opcodes > Lines.size())
    return std::nullopt;
  std::vector<OpcodeCount> Sorted(Opcodes);
  for (size_t I = 0; I < Opcodes; ++I) {
    StringRef Line = Next();
    auto [Total, Rest] = Line.split(' ');
    auto [InLoops, Opcode] = Rest.split(' ');
    OpcodeCount &O = Sorted[I];
    if (!number(Total, O.N.Total) || !number(InLoops, O.N.InLoops) ||
        O.N.InLoops > O.N.Total || O.N.Total > UINT32_MAX || Opcode.empty() ||
        Opcode.find_first_of(" \t\r") != StringRef::npos ||
        (I && !(Sorted[I - 1].Opcode < Opcode)))
      return std::nullopt;
    O.Opcode = Opcode;
  }
  if (Next() != "end" || Next() != "" || L != Lines.size())
    return std::nullopt;
  C.Opcodes = OpcodeCounts(Sorted); // copies the texts into the run's table
  return C;
}

void keepSassCounts(StringRef SassPath, const FamilyTable &T,
                    const StageCounts &C) {
  std::string Path = sassCountsPath(SassPath, T);
  if (Path.empty() || C.Of != Isa::SASS ||
      C.Families.size() != T.families().size())
    return;
  Error E = writeToOutput(Path, [&](raw_ostream &OS) {
    auto Pair = [&](const Count &N) { OS << N.Total << ' ' << N.InLoops; };
    OS << Magic << "\nfunctions " << C.Functions << "\nloops " << C.Loops
       << "\nnever " << C.NeverExecuted << "\ninstructions ";
    Pair(C.Instructions);
    OS << "\nother ";
    Pair(C.Other);
    OS << "\nfamilies " << C.Families.size() << '\n';
    for (const Count &F : C.Families) {
      Pair(F);
      OS << '\n';
    }
    OS << "opcodes " << C.Opcodes.size() << '\n';
    for (OpcodeCount O : C.Opcodes) {
      Pair(O.N);
      OS << ' ' << O.Opcode << '\n';
    }
    OS << "end\n";
    return Error::success();
  });
  consumeError(std::move(E)); // not kept: the next run parses again
}

} // namespace gestell
