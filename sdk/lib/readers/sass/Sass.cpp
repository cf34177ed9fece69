//===- Sass.cpp - SASS view: nvdisasm and cuobjdump listings --------------===//
//
// One line-oriented scanner for both renderings: the instruction line
// (`/*0040*/ @P0 BRA ... ;`) is the same in both; what differs is around it
// (sections, labels and line info for nvdisasm; `Function :` headers,
// encoding comments and a dotted end line for cuobjdump). Pointers into the
// mapped buffer, memchr for line ends, no regexes, no per-line copies.
//
//===----------------------------------------------------------------------===//
#include "gestell/Sass.h"
#include "readers/TextScan.h"

#include "gestell/Error.h"
#include "gestell/Input.h"
#include "gestell/KernelView.h"

#include "llvm/ADT/Twine.h"

#include <algorithm>
#include <cstring>

using namespace llvm;
using namespace gestell::scan;

namespace gestell {

const char *sassFormatName(SassFormat F) {
  switch (F) {
  case SassFormat::Nvdisasm:
    return "nvdisasm";
  case SassFormat::Cuobjdump:
    return "cuobjdump";
  case SassFormat::Triton:
    return "triton";
  case SassFormat::TritonParse:
    return "tritonparse";
  }
  return "";
}

uint32_t SassFunction::indexOf(uint64_t Address) const {
  auto It = std::lower_bound(
      Instructions.begin(), Instructions.end(), Address,
      [](const SassInstruction &I, uint64_t A) { return I.Address < A; });
  if (It == Instructions.end() || It->Address != Address)
    return NoIndex;
  return It - Instructions.begin();
}

uint32_t SassFunction::indexAtOrAfter(uint64_t Address) const {
  auto It = std::lower_bound(
      Instructions.begin(), Instructions.end(), Address,
      [](const SassInstruction &I, uint64_t A) { return I.Address < A; });
  return It == Instructions.end() ? NoIndex : It - Instructions.begin();
}

size_t SassModule::neverExecutedCount() const {
  size_t N = 0;
  for (const SassFunction &F : Functions)
    N += F.NeverExecuted;
  return N;
}

size_t SassModule::instructionCount() const {
  size_t N = 0;
  for (const SassFunction &F : Functions)
    N += F.Instructions.size();
  return N;
}

namespace {

inline bool startsWith(StringRef S, StringRef Prefix) {
  return S.size() >= Prefix.size() &&
         std::memcmp(S.data(), Prefix.data(), Prefix.size()) == 0;
}

/// S starts with the directive or keyword Word, followed by a blank or the
/// end ("`.section`" but not "`.sectionflags`").
inline bool startsWithWord(StringRef S, StringRef Word) {
  return startsWith(S, Word) &&
         (S.size() == Word.size() || isBlank(S[Word.size()]));
}

/// `/*0040*/` at the start of S (after blanks): the address of an
/// instruction line.
inline bool isAddressComment(StringRef S) {
  return S.size() > 4 && S[0] == '/' && S[1] == '*' && hexValue(S[2]) >= 0;
}

inline bool isSymbolChar(char C) {
  return isAlpha(C) || isDigit(C) || C == '_' || C == '$' || C == '.';
}

/// A label line: a symbol followed by ':' and nothing else.
inline bool isLabelLine(StringRef S) {
  if (S.size() < 2 || S.back() != ':')
    return false;
  for (char C : S.drop_back())
    if (!isSymbolChar(C))
      return false;
  return true;
}

/// The control code that starts an instruction line of triton.tools.disasm:
/// wait-barrier mask, read barrier, write barrier, yield, stall, then a tab
/// ("--:-:0:-:1\t", "02:-:-:Y:4\t"). Returns its length, or 0.
inline size_t controlCodeLength(StringRef S) {
  auto Barrier = [](char C) { return C == '-' || (C >= '0' && C <= '7'); };
  if (S.size() < 11 || S[2] != ':' || S[4] != ':' || S[6] != ':' ||
      S[8] != ':' || S[10] != '\t')
    return 0;
  bool Wait = (S[0] == '-' && S[1] == '-') || (isDigit(S[0]) && isDigit(S[1]));
  if (!Wait || !Barrier(S[3]) || !Barrier(S[5]) ||
      (S[7] != 'Y' && S[7] != '-') || hexValue(S[9]) < 0)
    return 0;
  return 10;
}

/// Where the SASS opcode at P ends: the first blank or ';' in [P, End),
/// sixteen bytes at a time with SSE2 (scan::findOpcodeEnd is the PTX's,
/// which stops at other bytes). Dot is the first '.' before it (where the
/// base opcode ends), or null.
inline const char *sassOpcodeEnd(const char *P, const char *End,
                                 const char *&Dot) {
  Dot = nullptr;
#if defined(__SSE2__)
  const __m128i Space = _mm_set1_epi8(' '), Tab = _mm_set1_epi8('\t'),
                Cr = _mm_set1_epi8('\r'), Semi = _mm_set1_epi8(';'),
                Period = _mm_set1_epi8('.');
  while (End - P >= 16) {
    __m128i V = _mm_loadu_si128(reinterpret_cast<const __m128i *>(P));
    unsigned Stop = scan::detail::matchAnyOf3(V, Space, Tab, Cr) |
                    unsigned(_mm_movemask_epi8(_mm_cmpeq_epi8(V, Semi)));
    unsigned Dots = unsigned(_mm_movemask_epi8(_mm_cmpeq_epi8(V, Period)));
    if (Stop)
      Dots &= (1u << __builtin_ctz(Stop)) - 1;
    if (Dots && !Dot)
      Dot = P + __builtin_ctz(Dots);
    if (Stop)
      return P + __builtin_ctz(Stop);
    P += 16;
  }
#endif
  for (; P < End && !isBlank(*P) && *P != ';'; ++P)
    if (*P == '.' && !Dot)
      Dot = P;
  return P;
}

/// What the scan from an instruction's opcode to its ';' finds.
struct InstructionTail {
  const char *Semi = nullptr; ///< the first ';', or End
  const char *Tick = nullptr; ///< the first '`' before it, or null
  bool Marks = false; ///< a '&' or '?' before it (scheduling annotations)
};

/// One pass over [P, End) for the instruction's ';', sixteen bytes at a
/// time with SSE2. Floor: the start of the buffer, so that the last turn
/// loads the sixteen bytes ending at End instead of going byte by byte.
inline InstructionTail scanInstructionTail(const char *P, const char *End,
                                           [[maybe_unused]] const char *Floor) {
  InstructionTail T;
  auto Byte = [&](char C) {
    if (C == '`' && !T.Tick)
      T.Tick = P;
    T.Marks |= C == '&' || C == '?';
  };
#if defined(__SSE2__)
  const __m128i Semi = _mm_set1_epi8(';'), Tick = _mm_set1_epi8('`'),
                Amp = _mm_set1_epi8('&'), Query = _mm_set1_epi8('?');
  // Bits of one block from Skip on: its ';', '`' and marks before the ';'.
  auto Block = [&](const char *Q, unsigned Skip) {
    __m128i V = _mm_loadu_si128(reinterpret_cast<const __m128i *>(Q));
    auto Mask = [&](__m128i C) {
      return unsigned(_mm_movemask_epi8(_mm_cmpeq_epi8(V, C))) >> Skip << Skip;
    };
    unsigned S = Mask(Semi), Before = S ? (1u << __builtin_ctz(S)) - 1 : ~0u;
    unsigned Ticks = Mask(Tick) & Before;
    if (Ticks && !T.Tick)
      T.Tick = Q + __builtin_ctz(Ticks);
    T.Marks |= ((Mask(Amp) | Mask(Query)) & Before) != 0;
    if (S)
      T.Semi = Q + __builtin_ctz(S);
    return S != 0;
  };
  for (; End - P >= 16; P += 16)
    if (Block(P, 0))
      return T;
  if (P < End && End - Floor >= 16) {
    if (!Block(End - 16, unsigned(16 - (End - P))))
      T.Semi = End;
    return T;
  }
#endif
  for (; P < End && *P != ';'; ++P)
    Byte(*P);
  T.Semi = P;
  return T;
}

enum class ToolLine { None, Message, Error };

/// A line nvdisasm or cuobjdump printed about itself on stderr:
/// "nvdisasm warning : ...", "cuobjdump info    : ...", "nvdisasm fatal :".
ToolLine toolLine(StringRef S) {
  if (!S.consume_front("nvdisasm") && !S.consume_front("cuobjdump"))
    return ToolLine::None;
  if (S.empty() || !isBlank(S[0]))
    return ToolLine::None;
  S = S.ltrim();
  ToolLine Kind = ToolLine::None;
  if (S.consume_front("warning") || S.consume_front("info"))
    Kind = ToolLine::Message;
  else if (S.consume_front("error") || S.consume_front("fatal"))
    Kind = ToolLine::Error;
  return S.ltrim().starts_with(":") ? Kind : ToolLine::None;
}

/// The disassembler's error when Text holds nothing but what nvdisasm or
/// cuobjdump printed about itself, an error among it: a listing captured
/// with its stderr (`nvdisasm ... > k.sass 2>&1`) from a disassembler that
/// failed. "" otherwise.
std::string disassemblerFailure(StringRef Text) {
  std::string Failure;
  while (!Text.empty()) {
    auto [L, Rest] = Text.split('\n');
    Text = Rest;
    L = L.trim();
    if (L.empty())
      continue;
    ToolLine T = toolLine(L);
    if (T == ToolLine::None)
      return "";
    if (T == ToolLine::Error && Failure.empty())
      Failure = L.str();
  }
  return Failure;
}

} // namespace

std::optional<SassFormat> detectSassFormat(StringRef Text) {
  // The first decisive line wins; look at the head of the file only. A
  // `Function:` header is triton's or TritonParse's: the instruction lines
  // after it decide (control codes, or nvdisasm's address comments).
  const char *P = Text.begin();
  const char *End = Text.begin() + std::min<size_t>(Text.size(), 1 << 20);
  bool FunctionHeader = false;
  while (P < End) {
    const char *LE = lineEnd(P, End);
    StringRef L = trim(P, LE);
    P = LE + 1;
    if (L.empty())
      continue;
    if (startsWith(L, "Function :") || startsWith(L, "code for sm_"))
      return SassFormat::Cuobjdump;
    if (controlCodeLength(L))
      return SassFormat::Triton;
    if (startsWith(L, "Function:")) {
      FunctionHeader = true;
      continue;
    }
    if (FunctionHeader) {
      if (isAddressComment(L))
        return SassFormat::TritonParse;
      continue;
    }
    if (startsWith(L, "//## File ") ||
        (startsWithWord(L, ".section") &&
         L.drop_front(strlen(".section")).ltrim().starts_with(".text.")))
      return SassFormat::Nvdisasm;
    if (isAddressComment(L)) {
      size_t Semi = L.find(';');
      if (Semi == StringRef::npos)
        return std::nullopt;
      return L.find("/* 0x", Semi) != StringRef::npos ? SassFormat::Cuobjdump
                                                      : SassFormat::Nvdisasm;
    }
  }
  if (FunctionHeader) // a function without instructions
    return SassFormat::Triton;
  return std::nullopt;
}

namespace {

class SassScanner {
public:
  SassScanner(SassModule &M, StringRef Path)
      : M(M), Path(Path), Buf(M.Buffer->getBuffer()) {}
  Error run();

private:
  SassModule &M;
  StringRef Path;
  StringRef Buf;
  bool Triton = false;      ///< triton.tools.disasm: no addresses
  uint64_t NextAddress = 0; ///< Triton: 16 bytes per instruction
  uint64_t PrevAddress = 0; ///< of the last instruction line read
  bool HavePrevAddress = false;
  uint32_t Line = 0;
  const char *LineBegin = nullptr;
  bool Cuobjdump = false;      ///< the listing is cuobjdump's
  bool ExplicitTarget = false; ///< .target or `code for` named the target
  bool Closed = true;          ///< cuobjdump: the last listing ended with dots

  // Function being read.
  SassFunction *F = nullptr;
  std::vector<SassInstruction> Insts; ///< the function being read
  size_t InstsLeft = 0;               ///< ';' not yet consumed
  std::vector<SassLabel> Labels;
  size_t PendingLabels = 0; ///< labels at the end of Labels without address
  StringRef EndLabel;       ///< from `.size f,(.L_x_N - f)` (nvdisasm)
  uint32_t CurFrame = NoIndex;
  bool InInfoGroup = false;
  StringRef CallerFile; ///< "inlined at" clause of the group's last frame
  uint32_t CallerLine = 0;

  uint32_t column(const char *P) const { return P - LineBegin + 1; }
  Error errorAt(const char *P, const Twine &Msg) const {
    return inputError(Path, Line, column(P), Msg);
  }

  Error scanLine(StringRef L);
  Error commentLine(StringRef L);
  Error directive(StringRef L);
  Error otherLine(StringRef L);
  void label(StringRef L);
  void startFunction(StringRef Name);
  Error finishFunction();
  Error instruction(StringRef L);
  Error readInstruction(StringRef L, SassInstruction &I, bool &Never);
  const char *readLocation(StringRef L, SassInstruction &I);
  /// Tick: the first '`' of I's operands, or null when they have none.
  void findCodeOperand(SassInstruction &I, bool TakesAddress,
                       const char *Tick) const;
  Error lineInfo(StringRef L);
  void endInfoGroup();
  void setTargetFromFlags(StringRef Flags);
};

void SassScanner::startFunction(StringRef Name) {
  M.Functions.emplace_back();
  F = &M.Functions.back();
  F->Name = Name.str();
  F->Line = Line;
  Insts.clear();
  Insts.reserve(InstsLeft);
  NextAddress = 0;
  HavePrevAddress = false;
  Labels.clear();
  PendingLabels = 0;
  EndLabel = StringRef();
  CurFrame = NoIndex;
  InInfoGroup = false;
}

void SassScanner::endInfoGroup() {
  if (!InInfoGroup)
    return;
  InInfoGroup = false;
  if (!CallerFile.empty()) {
    // The last frame said "inlined at" but no line for the caller followed.
    SassLineFrame Caller;
    Caller.File = CallerFile;
    Caller.Line = CallerLine;
    Caller.SassLine = M.Frames.back().SassLine;
    M.Frames.back().InlinedAt = M.Frames.size();
    M.Frames.push_back(Caller);
    CallerFile = StringRef();
  }
}

/// `//## File "/src/k.py", line 42[ inlined at "/src/k.py", line 7]`.
Error SassScanner::lineInfo(StringRef L) {
  auto Quoted = [&](StringRef &S, StringRef &Out) {
    if (!S.consume_front("\""))
      return false;
    size_t Q = S.find('"');
    if (Q == StringRef::npos)
      return false;
    Out = S.take_front(Q);
    S = S.drop_front(Q + 1);
    return true;
  };
  auto LineNo = [&](StringRef &S, uint32_t &Out) {
    if (!S.consume_front(", line "))
      return false;
    const char *P = S.begin();
    if (!parseDecimal(P, S.end(), Out))
      return false;
    S = S.drop_front(P - S.begin());
    return true;
  };
  StringRef S = L.drop_front(strlen("//## File "));
  // nvdisasm -gp: a line of the PTX embedded in the cubin, not a source
  // frame (the source frames of the group are before it).
  if (S.starts_with("\".nv_debug_ptx_txt\""))
    return Error::success();
  SassLineFrame Fr;
  Fr.SassLine = Line;
  if (!Quoted(S, Fr.File) || !LineNo(S, Fr.Line))
    return errorAt(L.begin(), "expected '//## File \"name\", line N'");
  StringRef NextCallerFile;
  uint32_t NextCallerLine = 0;
  // ltrim() without its call to find_first_not_of: a tenth of this line.
  S = S.drop_while([](char C) { return isSpace(C) || C == '\v' || C == '\f'; });
  if (S.consume_front("inlined at ")) {
    if (!Quoted(S, NextCallerFile) || !LineNo(S, NextCallerLine))
      return errorAt(L.begin(),
                     "expected 'inlined at \"name\", line N' in line info");
  }
  uint32_t Index = M.Frames.size();
  if (InInfoGroup && !CallerFile.empty())
    M.Frames.back().InlinedAt = Index; // this line is the caller's frame
  else {
    endInfoGroup();
    CurFrame = Index;
  }
  M.Frames.push_back(Fr);
  InInfoGroup = true;
  CallerFile = NextCallerFile;
  CallerLine = NextCallerLine;
  return Error::success();
}

void SassScanner::setTargetFromFlags(StringRef Flags) {
  size_t P = Flags.find("EF_CUDA_SM");
  if (P == StringRef::npos)
    return;
  StringRef Digits = Flags.drop_front(P + strlen("EF_CUDA_SM"));
  Digits = Digits.take_while(isDigit);
  if (Digits.empty())
    return;
  M.Target = ("sm_" + Digits).str();
  if (Flags.contains("EF_CUDA_ACCELERATORS"))
    M.Target += 'a';
}

/// Where the scheduling annotations of an sm_120 listing start among the
/// operands [P, S) (S if there are none): the trailing blank-separated
/// tokens that start with '&' or '?': "&wr=0x0", "&req={1}", "&rd=0x1",
/// "?trans1", "?WAIT5_END_GROUP".
const char *annotationsStart(const char *P, const char *S) {
  const char *OpsEnd = S;
  for (;;) {
    const char *TE = OpsEnd;
    while (TE > P && isBlank(TE[-1]))
      --TE;
    const char *TB = TE;
    while (TB > P && !isBlank(TB[-1]))
      --TB;
    if (TB == TE || TB == P || (*TB != '&' && *TB != '?'))
      return OpsEnd;
    OpsEnd = TB;
  }
}

/// Control flow, and whether the opcode takes a code address (the opcodes
/// nvdisasm prints with a label). One switch on the first letter: most
/// opcodes leave after a single compare. BaseLength: the length of the
/// opcode up to its first '.' (baseOpcode()), which the scan found.
bool classifyFlow(SassInstruction &I, size_t BaseLength) {
  StringRef Base = I.Opcode.take_front(BaseLength); // "" for ".X"
  char First = Base.empty() ? 0 : Base[0];
  bool TakesAddress = false;
  switch (First) {
  case 'B':
    if (Base == "BRA") {
      I.Kind = Flow::Branch;
      TakesAddress = true;
    } else if (Base == "BRX") {
      I.Kind = Flow::IndirectBranch;
    } else if (Base == "BSSY") {
      TakesAddress = true;
    } else if (Base == "BPT" && I.Opcode.starts_with("BPT.TRAP")) {
      I.Kind = Flow::Trap;
    }
    break;
  case 'C':
    if (Base == "CALL") {
      I.Kind = Flow::Call;
      TakesAddress = true;
    }
    break;
  case 'E':
    if (Base == "EXIT")
      I.Kind = Flow::Exit;
    break;
  case 'J':
    if (Base == "JMP") {
      I.Kind = Flow::Branch;
      TakesAddress = true;
    } else if (Base == "JMX") {
      I.Kind = Flow::IndirectBranch;
    }
    break;
  case 'K':
    if (Base == "KILL")
      I.Kind = Flow::Exit;
    break;
  case 'L':
    TakesAddress = Base == "LEPC";
    break;
  case 'R':
    if (Base == "RET") {
      I.Kind = Flow::Return;
      TakesAddress = true;
    }
    break;
  default:
    break;
  }
  return TakesAddress;
}

Error SassScanner::instruction(StringRef L) {
  // Built in place: no copy of the (large) instruction per line.
  Insts.emplace_back();
  SassInstruction &I = Insts.back();
  I.Line = Line;
  bool Never = false;
  if (Error E = readInstruction(L, I, Never)) {
    Insts.pop_back();
    return E;
  }
  if (HavePrevAddress && I.Address <= PrevAddress) {
    Insts.pop_back();
    return errorAt(L.begin(), "instruction addresses must increase within a "
                              "function");
  }
  PrevAddress = I.Address;
  HavePrevAddress = true;
  if (Never) {
    // Labels just read stay pending: they name the next executable line.
    Insts.pop_back();
    ++F->NeverExecuted;
    return Error::success();
  }
  I.Frame = CurFrame;
  // Labels just read name this instruction.
  for (size_t K = Labels.size() - PendingLabels; K < Labels.size(); ++K)
    Labels[K].Address = I.Address;
  PendingLabels = 0;
  return Error::success();
}

/// The address (or Triton's control code), predicate, opcode, operands and
/// scheduling annotations of instruction line L. Never: the line is under
/// `@!PT` / `@!UPT`, so its predicate is never true and it never runs (it is
/// checked for well-formedness like any line, then left out).
Error SassScanner::readInstruction(StringRef L, SassInstruction &I,
                                   bool &Never) {
  const char *P = readLocation(L, I), *E = L.end();
  if (!P)
    return errorAt(L.begin(), "expected an address comment like /*0040*/");
  if (P < E && *P == '@') {
    ++P;
    if (P < E && *P == '!') {
      I.PredicateNegated = true;
      ++P;
    }
    const char *B = P;
    while (P < E && (isAlpha(*P) || isDigit(*P) || *P == '_'))
      ++P;
    if (P == B)
      return errorAt(B, "expected a predicate register after '@'");
    I.Predicate = StringRef(B, P - B);
    P = skipBlanks(P, E);
  }
  Never = I.PredicateNegated && (I.Predicate == "PT" || I.Predicate == "UPT");
  const char *Op = P, *Dot;
  P = sassOpcodeEnd(P, E, Dot);
  if (P == Op)
    return errorAt(Op, "expected an opcode after the address");
  I.Opcode = StringRef(Op, P - Op);
  I.Column = column(Op);
  InstructionTail Tail = scanInstructionTail(P, E, Buf.begin());
  const char *S = Tail.Semi, *Tick = Tail.Tick;
  if (S == E)
    return errorAt(Op, "expected ';' to end the instruction (truncated line?)");
  // Annotations start with '&' or '?': without either, none to look for.
  const char *OpsEnd = Tail.Marks ? annotationsStart(P, S) : S;
  if (OpsEnd != S)
    I.Schedule = trim(OpsEnd, S);
  I.Operands = trim(P, OpsEnd);
  size_t BaseLength = (Dot ? Dot : P) - Op;
  findCodeOperand(I, classifyFlow(I, BaseLength),
                  Tick && Tick < I.Operands.end() ? Tick : nullptr);
  return Error::success();
}

/// The instruction's address, from its address comment or (Triton) from
/// its place: "02:-:-:Y:4<tab>@!P0 BRA LBB0;" is a control code, then the
/// instruction, and instructions are 16 bytes apart from the function start
/// (the addresses cuobjdump prints). Returns where the predicate or opcode
/// starts, null for a bad address comment.
const char *SassScanner::readLocation(StringRef L, SassInstruction &I) {
  const char *P = L.begin() + 2, *E = L.end();
  if (Triton) {
    I.Schedule = L.take_front(controlCodeLength(L));
    I.Address = NextAddress;
    NextAddress += 16;
    return skipBlanks(L.begin() + I.Schedule.size() + 1, E);
  }
  if (!parseHex(P, E, I.Address) || E - P < 2 || P[0] != '*' || P[1] != '/')
    return nullptr;
  return skipBlanks(P + 2, E);
}

/// The operand that names a code address: "`(label)" in nvdisasm listings
/// (kept on any opcode), else the last operand of an opcode that takes one:
/// a number (cuobjdump, triton) or an "LBB0" label (triton).
void SassScanner::findCodeOperand(SassInstruction &I, bool TakesAddress,
                                  const char *Tick) const {
  StringRef Ops = I.Operands;
  if (Tick) {
    StringRef T(Tick, Ops.end() - Tick);
    size_t Close = T.find(')');
    if (T.size() > 2 && T[1] == '(' && Close != StringRef::npos)
      I.CodeOperand = T.take_front(Close + 1);
    return;
  }
  if (!TakesAddress)
    return;
  size_t Last = Ops.find_last_of(" ,");
  StringRef T = Last == StringRef::npos ? Ops : Ops.drop_front(Last + 1);
  uint64_t A;
  const char *Q = T.begin() + 2;
  if (T.size() > 2 && T[0] == '0' && T[1] == 'x' && parseHex(Q, T.end(), A) &&
      Q == T.end()) {
    I.CodeOperand = T;
    I.CodeAddress = A;
  } else if (Triton && !T.empty() && isAlpha(T[0]) &&
             llvm::all_of(T, isSymbolChar)) {
    I.CodeOperand = T; // "LBB0": a label, resolved with the function
  }
}

Error SassScanner::finishFunction() {
  if (!F)
    return Error::success();
  endInfoGroup();
  // Labels after the last instruction sit one instruction past it.
  if (PendingLabels) {
    uint64_t Next = 0;
    if (HavePrevAddress) {
      uint64_t Step = Insts.size() > 1 ? Insts.back().Address -
                                             Insts[Insts.size() - 2].Address
                                       : 16;
      Next = PrevAddress + std::min<uint64_t>(Step, 16);
    }
    for (size_t K = Labels.size() - PendingLabels; K < Labels.size(); ++K)
      Labels[K].Address = Next;
    PendingLabels = 0;
  }
  if (!EndLabel.empty() &&
      std::none_of(Labels.begin(), Labels.end(),
                   [&](const SassLabel &L) { return L.Name == EndLabel; }))
    return inputError(Path, Line, 0,
                      "function '" + F->Name + "' ends before its end label '" +
                          EndLabel + "' (truncated listing?)");

  // Resolve label operands, then map addresses to instruction indices.
  std::vector<uint32_t> Order(Labels.size());
  for (uint32_t K = 0; K < Order.size(); ++K)
    Order[K] = K;
  std::sort(Order.begin(), Order.end(), [&](uint32_t A, uint32_t B) {
    return Labels[A].Name < Labels[B].Name;
  });
  F->Instructions.swap(Insts);
  InstsLeft -= std::min(InstsLeft, F->Instructions.size());
  F->Labels = Labels;
  std::vector<Transfer> Transfers;
  for (uint32_t K = 0; K < F->Instructions.size(); ++K) {
    SassInstruction &I = F->Instructions[K];
    // A code operand without an address names a label: "`(.L_x_3)" or
    // "LBB0".
    if (I.CodeAddress == NoAddress && !I.CodeOperand.empty()) {
      StringRef Name = I.CodeOperand;
      if (Name.consume_front("`("))
        Name.consume_back(")");
      auto It = std::lower_bound(
          Order.begin(), Order.end(), Name,
          [&](uint32_t A, StringRef N) { return Labels[A].Name < N; });
      if (It != Order.end() && Labels[*It].Name == Name)
        I.CodeAddress = Labels[*It].Address;
    }
    if (I.Kind == Flow::Branch || I.Kind == Flow::Call)
      I.BranchTarget = I.CodeAddress;
    if (I.Kind == Flow::None || I.Kind == Flow::Call)
      continue;
    Transfer T;
    T.Inst = K;
    T.Kind = I.Kind;
    bool Guarded =
        !I.Predicate.empty() && !(I.Predicate == "PT" && !I.PredicateNegated);
    // BRA.U !UP0, target / BRA.DIV UR4, target: a condition operand.
    bool CondOperand =
        I.Kind == Flow::Branch && !I.CodeOperand.empty() &&
        I.Operands.take_front(I.CodeOperand.begin() - I.Operands.begin())
            .contains(',');
    T.Conditional = Guarded || CondOperand;
    if (I.Kind == Flow::Branch && I.BranchTarget != NoAddress) {
      uint32_t Tgt = F->indexAtOrAfter(I.BranchTarget);
      if (Tgt != NoIndex)
        T.Targets.push_back(Tgt);
    }
    // nvdisasm names the targets of an indirect branch it could resolve:
    // `BRX R2 -0x2a0 (*"BRANCH_TARGETS .L_x_2,.L_x_13"*)` (the dispatch of a
    // warp-specialized kernel's partitions).
    if (I.Kind == Flow::IndirectBranch) {
      StringRef Ops = I.Operands;
      size_t At = Ops.find("BRANCH_TARGETS ");
      if (At != StringRef::npos) {
        StringRef List = Ops.drop_front(At + strlen("BRANCH_TARGETS "))
                             .take_until([](char C) { return C == '"'; });
        SmallVector<StringRef, 8> Names;
        List.split(Names, ',', -1, false);
        for (StringRef Name : Names) {
          Name = Name.trim();
          auto It = std::lower_bound(
              Order.begin(), Order.end(), Name,
              [&](uint32_t A, StringRef N) { return Labels[A].Name < N; });
          if (It == Order.end() || Labels[*It].Name != Name)
            continue;
          uint32_t Tgt = F->indexAtOrAfter(Labels[*It].Address);
          if (Tgt != NoIndex)
            T.Targets.push_back(Tgt);
        }
      }
    }
    Transfers.push_back(std::move(T));
  }
  F->CF = buildControlFlow(F->Instructions.size(), Transfers);
  F = nullptr;
  return Error::success();
}

Error SassScanner::run() {
  // Every instruction line holds one ';' and nothing else does (encodings,
  // line info and directives have none): the count sizes the vectors.
  size_t Semicolons = 0;
  if (Error E = checkText(Buf, Path, ';', Semicolons))
    return E;
  std::optional<SassFormat> Fmt = detectSassFormat(Buf);
  if (!Fmt && Buf.size() < MaxDisassemblerErrorBytes)
    if (std::string Failure = disassemblerFailure(Buf); !Failure.empty())
      // No listing to read, as when gestell's own nvdisasm fails to decode
      // the cubin: the kernel has no SASS, and the run says why.
      return make_error<MissingStage>(
          Stage::SASS, "",
          "its .sass holds no listing, only the disassembler's error (" +
              Failure + ")");
  if (!Fmt)
    return inputError(Path, "not SASS: expected nvdisasm, cuobjdump or "
                            "triton.tools.disasm output (no `Function :`, "
                            "`Function:`, `.section .text.`, line info or "
                            "instruction line found)");
  M.Format = *Fmt;
  Cuobjdump = *Fmt == SassFormat::Cuobjdump;
  Triton = *Fmt == SassFormat::Triton;
  InstsLeft = Semicolons;
  Insts.reserve(InstsLeft);

  const char *P = Buf.begin(), *End = Buf.end();
  while (P < End) {
    const char *LE = lineEnd(P, End);
    ++Line;
    LineBegin = P;
    const char *B = skipBlanks(P, LE);
    StringRef L(B, LE - B);
    while (!L.empty() && isBlank(L.back()))
      L = L.drop_back();
    P = LE + 1;
    if (L.empty())
      continue;
    if (Error E = scanLine(L))
      return E;
  }
  if (Cuobjdump && !Closed)
    return inputError(Path, Line, 0,
                      "the listing of '" + (F ? F->Name : std::string()) +
                          "' does not end with '..........' (truncated?)");
  return finishFunction();
}

/// One line, blanks trimmed, not empty.
Error SassScanner::scanLine(StringRef L) {
  char C = L[0];
  if (C == '/')
    return commentLine(L);
  endInfoGroup();
  if (C == 'n' || C == 'c') {
    ToolLine T = toolLine(L);
    if (T == ToolLine::Error)
      return errorAt(L.begin(), "the disassembler reported an error, so the "
                                "listing may be incomplete: " +
                                    L);
    if (T == ToolLine::Message) {
      if (!M.ToolMessages++) {
        M.FirstToolMessageLine = Line;
        M.FirstToolMessage = L.str();
      }
      return Error::success();
    }
  }
  if (C == '.')
    return directive(L);
  return otherLine(L);
}

/// An instruction behind its address comment, line info, or another
/// comment (encoding continuation lines).
Error SassScanner::commentLine(StringRef L) {
  if (L.size() > 1 && L[1] == '*' && isAddressComment(L)) {
    endInfoGroup();
    if (!F) {
      if (Cuobjdump)
        return errorAt(L.begin(), "instruction outside a function (no "
                                  "`Function :` line before it)");
      startFunction("");
    }
    return instruction(L);
  }
  if (L.size() > 1 && L[1] == '/' && startsWith(L, "//## File "))
    return lineInfo(L);
  endInfoGroup();
  return Error::success();
}

/// A line starting with '.': cuobjdump's end of a listing, a label, or a
/// directive of nvdisasm.
Error SassScanner::directive(StringRef L) {
  if (startsWith(L, "..........")) { // cuobjdump: end of a listing
    Closed = true;
    return finishFunction();
  }
  if (isLabelLine(L)) {
    label(L);
  } else if (startsWithWord(L, ".section")) {
    if (Error E = finishFunction())
      return E;
    StringRef Name = L.drop_front(strlen(".section")).ltrim();
    Name = Name.take_until([](char X) { return X == ',' || isBlank(X); });
    if (Name.consume_front(".text."))
      startFunction(Name);
  } else if (startsWithWord(L, ".target")) {
    if (!ExplicitTarget)
      M.Target = L.drop_front(strlen(".target")).trim().str();
    ExplicitTarget = true;
  } else if (startsWithWord(L, ".headerflags")) {
    if (!ExplicitTarget && M.Target.empty())
      setTargetFromFlags(L);
  } else if (startsWithWord(L, ".size") && F) {
    // .size f,(.L_x_1 - f): the label that ends f's code.
    size_t Open = L.find("(");
    size_t Minus = L.find(" - ");
    if (Open != StringRef::npos && Minus != StringRef::npos && Minus > Open &&
        L.drop_front(strlen(".size")).trim().starts_with(F->Name + ","))
      EndLabel = L.slice(Open + 1, Minus).trim();
  }
  // Other directives: .align, .global, .type, .other, ...
  return Error::success();
}

/// Function headers, Triton's instruction lines, cuobjdump's `code for`,
/// labels; outside functions, cuobjdump's fatbin headers ("arch = sm_90").
Error SassScanner::otherLine(StringRef L) {
  if (startsWith(L, "Function :")) {
    if (Error E = finishFunction())
      return E;
    startFunction(L.drop_front(strlen("Function :")).trim());
    Closed = false;
    return Error::success();
  }
  if (Triton || M.Format == SassFormat::TritonParse) {
    if (startsWith(L, "Function:")) {
      if (Error E = finishFunction())
        return E;
      startFunction(L.drop_front(strlen("Function:")).trim());
      return Error::success();
    }
    if (Triton && controlCodeLength(L)) {
      if (!F)
        return errorAt(L.begin(), "instruction outside a function (no "
                                  "`Function:` line before it)");
      return instruction(L);
    }
  }
  if (startsWith(L, "code for ")) {
    if (!ExplicitTarget)
      M.Target = L.drop_front(strlen("code for ")).trim().str();
    ExplicitTarget = true;
    return Error::success();
  }
  if (isLabelLine(L)) {
    label(L);
    return Error::success();
  }
  if (F)
    return errorAt(L.begin(), "expected an instruction line, a label, a "
                              "directive or a comment");
  return Error::success();
}

/// `.L_x_3:` or `LBB0:`: names the next instruction.
void SassScanner::label(StringRef L) {
  if (F) {
    Labels.push_back({L.drop_back(), 0, Line});
    ++PendingLabels;
  }
}

} // namespace

Expected<std::unique_ptr<SassModule>>
parseSass(std::unique_ptr<MemoryBuffer> Buffer, StringRef Path) {
  auto M = std::make_unique<SassModule>();
  M->Path = Path.str();
  M->Buffer = std::move(Buffer);
  SassScanner S(*M, Path);
  if (Error E = S.run())
    return E;
  return M;
}

Expected<std::unique_ptr<SassModule>> parseSass(StringRef Path) {
  auto Buf = openArtifact(Path, Content::Text);
  if (!Buf)
    return Buf.takeError();
  return parseSass(std::move(*Buf), Path);
}

} // namespace gestell
