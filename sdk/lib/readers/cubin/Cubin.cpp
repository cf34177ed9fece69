//===- Cubin.cpp - Resources of the kernels in a cubin --------------------===//
//
// A cubin is an ELF64 little-endian object for EM_CUDA. Per function it has
// a `.text.<name>` section; ptxas writes the resource attributes as a stream
// of EIATTR records into `.nv.info` (per symbol: REGCOUNT, FRAME_SIZE, ...)
// and `.nv.info.<name>` (MAXREG_COUNT, MAX_THREADS, ...). Each record is a
// 4-byte header {format, attribute, u16}; for format EIFMT_SVAL the u16 is
// the size of the payload that follows, otherwise it is the value itself.
//
//===----------------------------------------------------------------------===//
#include "gestell/Cubin.h"
#include "gestell/Error.h"
#include "gestell/Input.h"

#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/BinaryFormat/ELF.h"
// ELF.h returns std::move(E) where GCC 12 calls the move redundant.
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wredundant-move"
#include "llvm/Object/ELF.h"
#pragma GCC diagnostic pop
#include "llvm/Support/Endian.h"

#include <algorithm>

using namespace llvm;
using namespace llvm::object;

namespace gestell {

namespace {

// Record formats and the attributes we read (names as in NVIDIA's tools).
enum : uint8_t {
  EIFMT_NVAL = 1,
  EIFMT_BVAL = 2,
  EIFMT_HVAL = 3,
  EIFMT_SVAL = 4
};
enum : uint8_t {
  EIATTR_MAX_THREADS = 0x05,
  EIATTR_REQNTID = 0x10,
  EIATTR_FRAME_SIZE = 0x11,
  EIATTR_MAXREG_COUNT = 0x1b,
  EIATTR_REGCOUNT = 0x2f,
};
constexpr uint8_t STO_CUDA_ENTRY = 0x10;

struct Attribute {
  uint8_t Format = 0, Id = 0;
  uint16_t Value = 0; ///< the value (NVAL/BVAL/HVAL) or payload size (SVAL)
  ArrayRef<uint8_t> Payload;
  size_t Offset = 0; ///< of the record's header in its section
};

/// Splits an .nv.info section into records. A record running past the end
/// of the section is malformed input.
Error forEachAttribute(ArrayRef<uint8_t> Data, StringRef Path,
                       StringRef Section,
                       function_ref<Error(const Attribute &)> Fn) {
  size_t P = 0;
  while (P < Data.size()) {
    if (Data.size() - P < 4)
      return inputError(Path, "malformed cubin: section " + Section +
                                  " ends inside an attribute header");
    Attribute A;
    A.Offset = P;
    A.Format = Data[P];
    A.Id = Data[P + 1];
    A.Value = support::endian::read16le(Data.data() + P + 2);
    P += 4;
    if (A.Format == EIFMT_SVAL) {
      if (Data.size() - P < A.Value)
        return inputError(Path, "malformed cubin: attribute 0x" +
                                    Twine::utohexstr(A.Id) + " in " + Section +
                                    " runs past the end of the section");
      A.Payload = Data.slice(P, A.Value);
      P += A.Value;
    } else if (A.Format < EIFMT_NVAL || A.Format > EIFMT_HVAL) {
      return inputError(Path, "malformed cubin: unknown attribute format " +
                                  Twine(unsigned(A.Format)) + " in " + Section);
    }
    if (Error E = Fn(A))
      return E;
  }
  return Error::success();
}

uint32_t word(ArrayRef<uint8_t> Payload, size_t I) {
  return support::endian::read32le(Payload.data() + 4 * I);
}

/// ".nv.constant3.foo" -> {3, "foo"}; ".nv.constant3" -> {3, ""}.
std::optional<std::pair<unsigned, StringRef>> constantSection(StringRef Name) {
  if (!Name.consume_front(".nv.constant"))
    return std::nullopt;
  StringRef Digits = Name.take_while([](char C) { return isDigit(C); });
  unsigned Bank;
  if (Digits.empty() || Digits.getAsInteger(10, Bank))
    return std::nullopt;
  Name = Name.drop_front(Digits.size());
  if (Name.empty())
    return std::make_pair(Bank, StringRef());
  if (!Name.consume_front("."))
    return std::nullopt;
  return std::make_pair(Bank, Name);
}

void addBank(SmallVectorImpl<ConstantBank> &Banks, unsigned Bank,
             uint64_t Size) {
  for (ConstantBank &B : Banks)
    if (B.first == Bank) {
      B.second += Size;
      return;
    }
  Banks.push_back({Bank, Size}); // section order, as cuobjdump prints them
}

Error malformed(StringRef Path, Error E) {
  return inputError(Path,
                    "truncated or malformed cubin: " + toString(std::move(E)));
}

/// The checks of an ELF identification that say whether this is a cubin at
/// all, before LLVM reads the headers.
Error checkElfIdent(StringRef Data, StringRef Path) {
  if (Data.size() < ELF::EI_NIDENT || !Data.starts_with(ELF::ElfMagic))
    return inputError(Path, "not a cubin: expected an ELF file");
  if (Data[ELF::EI_CLASS] != ELF::ELFCLASS64 ||
      Data[ELF::EI_DATA] != ELF::ELFDATA2LSB)
    return inputError(Path, "not a cubin: expected a 64-bit little-endian "
                            "ELF file (CUDA cubin)");
  return Error::success();
}

/// The architecture moved from bits 0..7 to bits 8..15 with ABI version 2
/// (Blackwell); the "a" flag moved with it.
void readArch(const ELF64LE::Ehdr &Header, CubinInfo &Info) {
  if (Header.e_ident[ELF::EI_ABIVERSION] >= ELF::ELFABIVERSION_CUDA_V2) {
    Info.SmArch =
        (Header.e_flags & ELF::EF_CUDA_SM_MASK) >> ELF::EF_CUDA_SM_OFFSET;
    Info.ArchSpecific = Header.e_flags & ELF::EF_CUDA_ACCELERATORS;
  } else {
    Info.SmArch = Header.e_flags & ELF::EF_CUDA_SM;
    Info.ArchSpecific = Header.e_flags & ELF::EF_CUDA_ACCELERATORS_V1;
  }
}

/// Every section's bytes must be in the file, even those we do not read: a
/// cut file must not pass for a whole one.
Error checkSectionBounds(ELF64LEFile::Elf_Shdr_Range Sections, StringRef Data,
                         StringRef Path) {
  for (const auto &Sec : Sections)
    if (Sec.sh_type != ELF::SHT_NOBITS &&
        (Sec.sh_offset > Data.size() ||
         Sec.sh_size > Data.size() - Sec.sh_offset))
      return inputError(Path, "truncated or malformed cubin: a section runs "
                              "past the end of the file (" +
                                  Twine(Data.size()) + " bytes)");
  return Error::success();
}

/// One cubin being read into a CubinInfo: its symbols, then its sections
/// (per-function ones by name), then the .nv.info records.
class CubinReader {
public:
  CubinReader(const ELF64LEFile &File, StringRef Data, StringRef Path,
              CubinInfo &Info)
      : File(File), Data(Data), Path(Path), Info(Info) {}

  Error readSymbols(ELF64LEFile::Elf_Shdr_Range Sections);
  Error readSections(ELF64LEFile::Elf_Shdr_Range Sections);
  void addSectionSizes();
  Error readNvInfo();

private:
  struct FuncSym {
    StringRef Name;
    unsigned Section;
    uint8_t Other;
  };
  struct Pending {
    StringRef Name;
    uint64_t Size;
    unsigned Bank; ///< for constant banks
  };

  void addKernel(const ELF64LE::Shdr &Sec, unsigned Index, StringRef Fn);
  Error readAttribute(StringRef SecName, ArrayRef<uint8_t> Contents,
                      CubinKernel *Own, const Attribute &A);
  CubinKernel *kernelNamed(StringRef Fn) {
    auto It = KernelIndex.find(Fn);
    return It == KernelIndex.end() ? nullptr : &Info.Kernels[It->second];
  }
  CubinKernel *kernelOfSymbol(uint32_t Sym) {
    return Funcs[Sym] ? kernelNamed(Funcs[Sym]->Name) : nullptr;
  }

  const ELF64LEFile &File;
  StringRef Data, Path;
  CubinInfo &Info;
  /// Symbols: index -> (name, section, st_other), for the FUNC symbols that
  /// .nv.info records point at. A vector by index, not a map: an index is
  /// any 32-bit value a record holds, the map's reserved keys included.
  std::vector<std::optional<FuncSym>> Funcs;
  /// The FUNC symbols of each section (st_shndx is 16 bits: never a
  /// reserved key of the map).
  DenseMap<unsigned, SmallVector<uint32_t, 1>> FuncsInSection;
  StringMap<unsigned> KernelIndex; ///< into Info.Kernels, by function name
  SmallVector<Pending, 4> Shared, Local, Constants;
  SmallVector<std::pair<StringRef, ArrayRef<uint8_t>>, 2> NvInfo;
};

Error CubinReader::readSymbols(ELF64LEFile::Elf_Shdr_Range Sections) {
  const ELF64LE::Shdr *SymTab = nullptr;
  for (const auto &Sec : Sections)
    if (Sec.sh_type == ELF::SHT_SYMTAB)
      SymTab = &Sec;
  if (!SymTab)
    return Error::success();
  Expected<ELF64LEFile::Elf_Sym_Range> Syms = File.symbols(SymTab);
  if (!Syms)
    return malformed(Path, Syms.takeError());
  Expected<StringRef> StrTab = File.getStringTableForSymtab(*SymTab);
  if (!StrTab)
    return malformed(Path, StrTab.takeError());
  Funcs.resize(Syms->size());
  uint32_t Index = 0;
  for (const auto &Sym : *Syms) {
    if (Sym.getType() == ELF::STT_FUNC) {
      Expected<StringRef> Name = Sym.getName(*StrTab);
      if (!Name)
        return malformed(Path, Name.takeError());
      Funcs[Index] = FuncSym{*Name, Sym.st_shndx, Sym.st_other};
      FuncsInSection[Sym.st_shndx].push_back(Index);
      if (Sym.st_shndx == ELF::SHN_UNDEF && Name->starts_with("__cuda_syscall"))
        Info.Syscalls.push_back(Name->str());
    }
    ++Index;
  }
  llvm::sort(Info.Syscalls);
  Info.Syscalls.erase(llvm::unique(Info.Syscalls), Info.Syscalls.end());
  return Error::success();
}

Error CubinReader::readSections(ELF64LEFile::Elf_Shdr_Range Sections) {
  unsigned SecIndex = 0;
  for (const auto &Sec : Sections) {
    unsigned ThisIndex = SecIndex++;
    Expected<StringRef> NameOrErr = File.getSectionName(Sec);
    if (!NameOrErr)
      return malformed(Path, NameOrErr.takeError());
    StringRef Name = *NameOrErr;
    // NOBITS sections have a size but no contents: read only sh_size.
    if (Name.starts_with(".text.")) {
      addKernel(Sec, ThisIndex, Name.drop_front(6));
    } else if (Name.starts_with(".nv.shared.") &&
               !Name.starts_with(".nv.shared.reserved.")) {
      Shared.push_back({Name.drop_front(11), Sec.sh_size, 0});
    } else if (Name.starts_with(".nv.local.")) {
      Local.push_back({Name.drop_front(10), Sec.sh_size, 0});
    } else if (Name == ".nv.global" || Name == ".nv.global.init") {
      Info.Global += Sec.sh_size;
    } else if (auto Bank = constantSection(Name)) {
      if (Bank->second.empty())
        addBank(Info.CommonConstants, Bank->first, Sec.sh_size);
      else
        Constants.push_back({Bank->second, Sec.sh_size, Bank->first});
    } else if (Name == ".nv.info" || Name.starts_with(".nv.info.")) {
      Expected<ArrayRef<uint8_t>> Contents = File.getSectionContents(Sec);
      if (!Contents)
        return malformed(Path, Contents.takeError());
      NvInfo.push_back({Name, *Contents});
    }
  }
  return Error::success();
}

/// The kernel of a `.text.<Fn>` section (section number Index).
void CubinReader::addKernel(const ELF64LE::Shdr &Sec, unsigned Index,
                            StringRef Fn) {
  CubinKernel K;
  K.Name = Fn.str();
  K.CodeBytes = Sec.sh_size;
  K.Registers = Sec.sh_info >> 24; // pre-Hopper; REGCOUNT overrides
  if (auto It = FuncsInSection.find(Index); It != FuncsInSection.end())
    for (uint32_t Idx : It->second)
      if (Funcs[Idx]->Name == Fn)
        K.IsEntry = Funcs[Idx]->Other & STO_CUDA_ENTRY;
  KernelIndex[Fn] = Info.Kernels.size();
  Info.Kernels.push_back(std::move(K));
}

/// The sizes of the per-function shared, local and constant sections.
void CubinReader::addSectionSizes() {
  for (const Pending &P : Shared)
    if (CubinKernel *K = kernelNamed(P.Name))
      K->SharedStatic += P.Size;
  for (const Pending &P : Local)
    if (CubinKernel *K = kernelNamed(P.Name))
      K->Local += P.Size;
  for (const Pending &P : Constants)
    if (CubinKernel *K = kernelNamed(P.Name))
      addBank(K->Constants, P.Bank, P.Size);
}

Error CubinReader::readNvInfo() {
  for (const auto &[SecName, Contents] : NvInfo) {
    // .nv.info.<fn> records concern <fn>; .nv.info records name a symbol.
    CubinKernel *Own =
        SecName == ".nv.info" ? nullptr : kernelNamed(SecName.drop_front(9));
    if (Error E = forEachAttribute(
            Contents, Path, SecName, [&](const Attribute &A) -> Error {
              return readAttribute(SecName, Contents, Own, A);
            }))
      return E;
  }
  return Error::success();
}

Error CubinReader::readAttribute(StringRef SecName, ArrayRef<uint8_t> Contents,
                                 CubinKernel *Own, const Attribute &A) {
  bool PerSymbol = A.Format == EIFMT_SVAL && A.Payload.size() == 8 &&
                   (A.Id == EIATTR_REGCOUNT || A.Id == EIATTR_FRAME_SIZE);
  if (PerSymbol) {
    uint32_t Sym = word(A.Payload, 0);
    if (Sym >= Funcs.size()) {
      uint64_t At = Contents.data() - Data.bytes_begin() + A.Offset;
      return inputError(Path, "malformed cubin: the " + SecName +
                                  " record at byte 0x" + Twine::utohexstr(At) +
                                  " names symbol " + Twine(Sym) +
                                  ", past the symbol table's " +
                                  Twine(Funcs.size()) + " symbols");
    }
    CubinKernel *K = kernelOfSymbol(Sym);
    if (!K)
      return Error::success(); // a helper without its own .text
    uint32_t V = word(A.Payload, 1);
    if (A.Id == EIATTR_REGCOUNT)
      K->Registers = V;
    else
      K->Stack = V;
    return Error::success();
  }
  if (!Own)
    return Error::success();
  if (A.Id == EIATTR_MAXREG_COUNT && A.Format == EIFMT_HVAL)
    Own->MaxRegisters = A.Value;
  else if ((A.Id == EIATTR_MAX_THREADS || A.Id == EIATTR_REQNTID) &&
           A.Format == EIFMT_SVAL && A.Payload.size() == 12) {
    unsigned N = word(A.Payload, 0) * word(A.Payload, 1) * word(A.Payload, 2);
    (A.Id == EIATTR_MAX_THREADS ? Own->MaxThreads : Own->RequiredThreads) = N;
  }
  return Error::success();
}

} // namespace

uint64_t CubinKernel::constantBank(unsigned N) const {
  for (const ConstantBank &B : Constants)
    if (B.first == N)
      return B.second;
  return 0;
}

std::string CubinInfo::targetName() const {
  if (!SmArch)
    return {};
  return "sm_" + std::to_string(SmArch) + (ArchSpecific ? "a" : "");
}

const CubinKernel *CubinInfo::find(StringRef Name) const {
  for (const CubinKernel &K : Kernels)
    if (K.Name == Name)
      return &K;
  return nullptr;
}

void CubinInfo::printResUsage(raw_ostream &OS) const {
  OS << "\nResource usage:\n Common:\n  GLOBAL:" << Global;
  for (const ConstantBank &B : CommonConstants)
    OS << " CONSTANT[" << B.first << "]:" << B.second;
  OS << '\n';
  for (const CubinKernel &K : Kernels) {
    OS << " Function " << K.Name << ":\n  REG:" << K.Registers
       << " STACK:" << K.Stack << " SHARED:" << K.SharedStatic
       << " LOCAL:" << K.Local;
    for (const ConstantBank &B : K.Constants)
      OS << " CONSTANT[" << B.first << "]:" << B.second;
    OS << " TEXTURE:" << K.Textures << " SURFACE:" << K.Surfaces
       << " SAMPLER:" << K.Samplers << '\n';
  }
}

Expected<CubinInfo> readCubin(StringRef Path) {
  Expected<std::unique_ptr<MemoryBuffer>> Buf =
      openArtifact(Path, Content::Binary);
  if (!Buf)
    return Buf.takeError();
  return readCubin((*Buf)->getMemBufferRef(), Path);
}

Expected<CubinInfo> readCubin(MemoryBufferRef Buffer, StringRef Path) {
  StringRef Data = Buffer.getBuffer();
  if (Error E = checkElfIdent(Data, Path))
    return E;
  Expected<ELF64LEFile> FileOrErr = ELF64LEFile::create(Data);
  if (!FileOrErr)
    return malformed(Path, FileOrErr.takeError());
  const ELF64LEFile &File = *FileOrErr;
  const auto &Header = File.getHeader();
  if (Header.e_machine != ELF::EM_CUDA)
    return inputError(Path,
                      "not a cubin: ELF file for machine '" +
                          ELF::convertEMachineToArchName(Header.e_machine) +
                          "', expected NVIDIA CUDA");

  CubinInfo Info;
  Info.Path = Path.str();
  readArch(Header, Info);
  Expected<ELF64LEFile::Elf_Shdr_Range> Sections = File.sections();
  if (!Sections)
    return malformed(Path, Sections.takeError());
  if (Expected<ELF64LEFile::Elf_Phdr_Range> Phdrs = File.program_headers();
      !Phdrs)
    return malformed(Path, Phdrs.takeError());
  if (Error E = checkSectionBounds(*Sections, Data, Path))
    return E;

  CubinReader R(File, Data, Path, Info);
  if (Error E = R.readSymbols(*Sections))
    return E;
  if (Error E = R.readSections(*Sections))
    return E;
  R.addSectionSizes();
  if (Error E = R.readNvInfo())
    return E;
  return Info;
}

} // namespace gestell
