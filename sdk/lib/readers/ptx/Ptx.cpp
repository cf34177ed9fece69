//===- Ptx.cpp - PTX view: module helpers and the scanner -----------------===//
//
// A hand-written scanner over the mapped file: one pass, pointers into the
// buffer, memchr for line and statement ends, no regexes and no per-line
// copies. Statements, not lines, are the unit (inline asm may put several on
// one line, and a call's operands may span lines).
//
//===----------------------------------------------------------------------===//
#include "gestell/Ptx.h"
#include "readers/TextScan.h"

#include "gestell/Error.h"
#include "gestell/Input.h"

#include "llvm/ADT/Twine.h"
#include "llvm/Support/MathExtras.h"
#include "llvm/Support/Path.h"

#include <algorithm>
#include <array>
#include <cstring>

using namespace llvm;
using namespace gestell::scan;

namespace gestell {

SmallVector<StringRef, 4> PtxInstruction::operands() const {
  SmallVector<StringRef, 4> Out;
  int Depth = 0;
  size_t Start = 0;
  for (size_t I = 0; I < Operands.size(); ++I) {
    char C = Operands[I];
    if (C == '{' || C == '[' || C == '(')
      ++Depth;
    else if ((C == '}' || C == ']' || C == ')') && Depth > 0)
      --Depth;
    else if (C == ',' && Depth == 0) {
      Out.push_back(Operands.slice(Start, I).trim());
      Start = I + 1;
    }
  }
  StringRef Last = Operands.substr(Start).trim();
  if (!Last.empty() || !Out.empty())
    Out.push_back(Last);
  return Out;
}

std::string PtxModule::describe(DebugLoc L) const {
  if (!L.isValid() || L.File >= Files.size() || Files[L.File].empty())
    return "";
  std::string S = Files[L.File] + ":" + std::to_string(L.Line);
  if (L.Column)
    S += ":" + std::to_string(L.Column);
  return S;
}

size_t PtxModule::instructionCount() const {
  size_t N = 0;
  for (const PtxFunction &F : Functions)
    N += F.Instructions.size();
  return N;
}

namespace {

/// Label characters (PTX identifiers without '%', which labels never use),
/// by table: the scanner asks for every statement's first word.
constexpr std::array<bool, 256> LabelChars = [] {
  std::array<bool, 256> T{};
  for (unsigned C = 0; C < 256; ++C)
    T[C] = (C >= 'a' && C <= 'z') || (C >= 'A' && C <= 'Z') ||
           (C >= '0' && C <= '9') || C == '_' || C == '$';
  return T;
}();
inline bool isLabelChar(char C) {
  return LabelChars[static_cast<unsigned char>(C)];
}

/// Whether [P, End) starts with the literal S (its length a constant: the
/// compare is inlined, no call to memcmp).
template <size_t N>
inline bool startsWith(const char *P, const char *End, const char (&S)[N]) {
  return static_cast<size_t>(End - P) >= N - 1 && std::memcmp(P, S, N - 1) == 0;
}

class PtxScanner {
public:
  PtxScanner(PtxModule &M, StringRef Path)
      : M(M), Path(Path), Buf(M.Buffer->getBuffer()), Cur(Buf.begin()),
        End(Buf.end()), LineStart(Cur) {}

  Error run();

private:
  PtxModule &M;
  StringRef Path;
  StringRef Buf;
  const char *Cur;
  const char *End;
  const char *LineStart;
  uint32_t Line = 1;

  // Function being parsed.
  struct PendingBranch {
    uint32_t Inst;
    StringRef Name;
    uint32_t Scope;
    uint32_t Line, Column;
  };
  struct BranchTargets {
    StringRef Name; ///< the label that names the list
    uint32_t Scope;
    StringRef List; ///< "L1, L2, L3"
  };
  std::vector<PtxInstruction> Insts; ///< the function being read
  size_t StatementsLeft = 0;         ///< ';' not yet consumed, roughly
  std::vector<PtxLabel> Labels;
  std::vector<PendingBranch> Branches;
  std::vector<BranchTargets> Tables;
  std::vector<uint32_t> ScopeParent;
  std::vector<uint32_t> LabelOrder; ///< Labels sorted by (name, scope)
  DebugLoc CurLoc;
  bool InlineAsm = false;
  bool LastWasLabel = false;
  PtxFunction *Fn = nullptr; ///< the function whose body is being read

  uint32_t column(const char *P) const { return P - LineStart + 1; }

  /// An error at P, which may lie on an earlier line than the one being
  /// read (a statement or balanced group that spans lines): its own line
  /// and column, counted back from the current line's start.
  Error errorAt(const char *P, const Twine &Msg) const {
    if (P >= LineStart)
      return inputError(Path, Line, column(P), Msg);
    uint32_t L = Line;
    const char *Start = LineStart;
    while (Start > P && L > 1) {
      --L;
      const char *Prev = Start - 1; // the '\n' that ended line L
      while (Prev > Buf.begin() && Prev[-1] != '\n')
        --Prev;
      Start = Prev;
    }
    return inputError(Path, L, uint32_t(P - Start) + 1, Msg);
  }
  Error errorAtLine(uint32_t L, uint32_t C, const Twine &Msg) const {
    return inputError(Path, L, C, Msg);
  }

  void newline() {
    ++Line;
    LineStart = ++Cur;
  }

  /// Skips blanks and newlines.
  void skipSpace() {
    const char *P = Cur;
    // Between LLVM's statements: a line end and one tab, in one compare.
    if (End - P >= 2 && P[0] == '\n' && P[1] == '\t') {
      ++Line;
      LineStart = P + 1;
      P += 2;
    }
    for (; P < End && isSpace(*P); ++P)
      if (*P == '\n') {
        ++Line;
        LineStart = P + 1;
      }
    Cur = P;
  }
  void skipBlanks() {
    while (Cur < End && isBlank(*Cur))
      ++Cur;
  }
  void skipToLineEnd() { Cur = lineEnd(Cur, End); }

  /// At "/*": skips the comment, counting lines.
  Error skipBlockComment() {
    const char *Open = Cur;
    uint32_t OpenLine = Line, OpenCol = column(Open);
    Cur += 2;
    while (Cur < End) {
      if (*Cur == '*' && Cur + 1 < End && Cur[1] == '/') {
        Cur += 2;
        return Error::success();
      }
      if (*Cur == '\n')
        newline();
      else
        ++Cur;
    }
    return errorAtLine(OpenLine, OpenCol, "unterminated '/*' comment");
  }

  /// At '/': a comment of either kind; anything else is an error.
  Error skipComment() {
    if (Cur + 1 < End && Cur[1] == '/') {
      skipToLineEnd();
      return Error::success();
    }
    if (Cur + 1 < End && Cur[1] == '*')
      return skipBlockComment();
    return errorAt(Cur, "expected a comment after '/'");
  }

  /// Skips blanks, newlines and comments.
  Error skipTrivia() {
    for (;;) {
      skipSpace();
      if (Cur < End && *Cur == '/') {
        if (Error E = skipComment())
          return E;
        continue;
      }
      return Error::success();
    }
  }

  StringRef readWord() {
    const char *B = Cur;
    while (Cur < End && !isSpace(*Cur) && *Cur != ';' && *Cur != ',' &&
           *Cur != '(' && *Cur != ')' && *Cur != '{' && *Cur != '}' &&
           *Cur != '/')
      ++Cur;
    return StringRef(B, Cur - B);
  }

  /// Finds the ';' that ends the statement at Cur, skipping comments and
  /// counting lines; Cur is left after it and [Cur0, semicolon) returned.
  /// Inlined: the ';' is on this line with no comment before it, for all
  /// but a few statements of a file.
  LLVM_ATTRIBUTE_ALWAYS_INLINE Expected<StringRef>
  statementTail(const char *StmtStart) {
    const char *Stop = findStatementBreak(Cur, End);
    if (LLVM_LIKELY(Stop < End && *Stop == ';')) {
      StringRef Tail(Cur, Stop - Cur);
      Cur = Stop + 1;
      return Tail;
    }
    return statementTailSlow(StmtStart);
  }

  /// statementTail past a line end or a comment.
  Expected<StringRef> statementTailSlow(const char *StmtStart) {
    const char *B = Cur;
    uint32_t L0 = Line, C0 = column(StmtStart);
    while (Cur < End) {
      char C = *Cur;
      if (C == ';') {
        StringRef Tail(B, Cur - B);
        ++Cur;
        return Tail;
      }
      if (C == '\n') {
        newline();
        continue;
      }
      if (C == '/' && Cur + 1 < End && (Cur[1] == '/' || Cur[1] == '*')) {
        if (Error E = skipComment())
          return E;
        continue;
      }
      ++Cur;
    }
    return errorAtLine(L0, C0, "expected ';' to end this statement");
  }

  Error topLevel();
  Error directiveAtTop();
  Error parseFile();
  Error parseLoc();
  Error skipSection(const char *Start);
  Error skipBalanced(char Open, char Close);
  Error functionHeader(bool IsEntry, uint32_t HeaderLine);
  Error headerDirective(PtxTuning &T);
  /// Kept out of line: the statement loop is the parser's hot path, and
  /// its code is best (measured) as a function of its own.
  LLVM_ATTRIBUTE_NOINLINE Error functionBody(PtxFunction &F);
  Error bodyDirective(uint32_t Scope);
  Expected<uint64_t> localBytes(StringRef Decl, const char *At,
                                uint64_t &Align);
  /// The instruction at Cur. Without a predicate, the caller has found
  /// where its first word ends (OpEnd) and the blanks after it end (After).
  Error instruction(const char *Start, uint32_t Scope, const char *OpEnd,
                    const char *After);
  Error finishFunction(PtxFunction &F);
  uint32_t findLabel(StringRef Name, uint32_t Scope) const;
};

Error PtxScanner::run() {
  size_t Semicolons = 0;
  if (Error E = checkText(Buf, Path, ';', Semicolons))
    return E;
  M.Files.assign(1, std::string());
  StatementsLeft = Semicolons; // an upper bound on the statements
  Insts.reserve(StatementsLeft);
  for (;;) {
    if (Error E = skipTrivia())
      return E;
    if (Cur >= End)
      break;
    if (*Cur != '.')
      return errorAt(Cur, "expected a PTX directive at top level");
    if (Error E = directiveAtTop())
      return E;
  }
  if (M.Version.empty())
    return inputError(Path, "not PTX: no .version directive");
  return Error::success();
}

Error PtxScanner::skipBalanced(char Open, char Close) {
  uint32_t L0 = Line, C0 = column(Cur);
  int Depth = 0;
  while (Cur < End) {
    char C = *Cur;
    if (C == '\n') {
      newline();
      continue;
    }
    if (C == '/' && Cur + 1 < End && (Cur[1] == '/' || Cur[1] == '*')) {
      if (Error E = skipComment())
        return E;
      continue;
    }
    if (C == '"') { // strings may hold brackets
      const char *Q = Cur + 1;
      while (Q < End && *Q != '"' && *Q != '\n')
        ++Q;
      Cur = Q < End && *Q == '"' ? Q + 1 : Q;
      continue;
    }
    ++Cur;
    if (C == Open)
      ++Depth;
    else if (C == Close && --Depth == 0)
      return Error::success();
  }
  return errorAtLine(L0, C0,
                     Twine("unbalanced '") + Twine(Open) + "': no matching '" +
                         Twine(Close) + "' before the end of the file");
}

/// `.section NAME { ... }`: DWARF tables Triton's PTX carries (often a third
/// of the file). Skipped in one pass; only braces outside comments count.
Error PtxScanner::skipSection(const char *Start) {
  uint32_t L0 = Line, C0 = column(Start);
  int Depth = 0;
  bool Opened = false;
  const char *P = Cur;
  while (P < End) {
    // To the next '/', '{' or '}', counting lines (16 bytes a turn).
    P = findAnyOf3CountingLines(P, End, '/', '{', '}', Line, LineStart);
    if (P >= End)
      break;
    char C = *P;
    if (C == '/') {
      P = lineEnd(P, End); // a comment: DWARF tables name every byte
    } else if (C == '{') {
      ++Depth;
      Opened = true;
      ++P;
    } else if (C == '}' && Opened && --Depth == 0) {
      Cur = P + 1;
      return Error::success();
    } else {
      ++P;
    }
  }
  Cur = P;
  return errorAtLine(L0, C0,
                     "unterminated .section: no closing '}' before the end "
                     "of the file");
}

Error PtxScanner::parseFile() {
  // .file N "name" [, timestamp, size]
  skipBlanks();
  uint32_t Index;
  const char *P = Cur;
  if (!parseDecimal(P, End, Index) || Index == 0 || Index > (1u << 16))
    return errorAt(Cur, "expected a file index (1 to 65536) after .file");
  Cur = P;
  skipBlanks();
  if (Cur >= End || *Cur != '"')
    return errorAt(Cur, "expected a quoted file name after the .file index");
  const char *NameBegin = ++Cur;
  const char *LE = lineEnd(Cur, End);
  const void *Q = memchr(Cur, '"', LE - Cur);
  if (!Q)
    return errorAt(NameBegin - 1, "unterminated file name string");
  const char *NameEnd = static_cast<const char *>(Q);
  if (M.Files.size() <= Index)
    M.Files.resize(Index + 1);
  M.Files[Index].assign(NameBegin, NameEnd);
  Cur = LE;
  return Error::success();
}

/// "F L C" at P, blanks before each number skipped, into Out; P is left
/// after them. False when a number is missing.
static bool parseLocTriple(const char *&P, const char *LE, DebugLoc &Out) {
  for (uint32_t *Field : {&Out.File, &Out.Line, &Out.Column}) {
    while (P < LE && isBlank(*P))
      ++P;
    if (!parseDecimal(P, LE, *Field))
      return false;
  }
  return true;
}

/// `.loc F L C [, function_name X] [, inlined_at F L C]  // comment`.
Error PtxScanner::parseLoc() {
  PtxLocDirective D;
  D.Line = Line;
  const char *LE = lineEnd(Cur, End);
  const char *P = Cur;
  if (!parseLocTriple(P, LE, D.Loc))
    return errorAt(Cur, "expected 'file line column' after .loc");
  // Optional attributes up to the comment (mostly none: blanks).
  const char *CommentAt = LE;
  if (const void *S = memchr(P, '/', LE - P))
    CommentAt = static_cast<const char *>(S);
  for (const char *Q = P;
       (Q = static_cast<const char *>(memchr(Q, 'i', CommentAt - Q))); ++Q)
    if (startsWith(Q, CommentAt, "inlined_at")) {
      const char *Before = Q + strlen("inlined_at");
      P = Before;
      if (!parseLocTriple(P, LE, D.InlinedAt))
        return errorAt(Before, "expected 'file line column' after inlined_at");
      break;
    }
  if (CommentAt + 1 < LE && CommentAt[1] == '/')
    D.Comment = trim(CommentAt + 2, LE);
  Cur = LE;
  CurLoc = D.Loc;
  M.Locs.push_back(D);
  return Error::success();
}

Error PtxScanner::directiveAtTop() {
  const char *Start = Cur;
  // The declaration may span lines: errorAt(Start) points at where it
  // starts, and so does the function's line.
  uint32_t StartLine = Line;
  StringRef Word = readWord();
  if (Word == ".version" || Word == ".target" || Word == ".address_size") {
    skipBlanks();
    const char *LE = lineEnd(Cur, End);
    const char *Stop = LE;
    if (const void *S = memchr(Cur, '/', LE - Cur))
      Stop = static_cast<const char *>(S);
    StringRef Value = trim(Cur, Stop);
    if (Value.empty())
      return errorAt(Start, "expected a value after " + Word);
    if (Word == ".version")
      M.Version = Value;
    else if (Word == ".target")
      M.Target = Value;
    else
      M.AddressSize = Value;
    Cur = LE;
    return Error::success();
  }
  if (Word == ".file")
    return parseFile();
  if (Word == ".loc")
    return parseLoc();
  if (Word == ".section")
    return skipSection(Start);
  // Linking directives and attributes before .entry/.func or a variable.
  for (;;) {
    if (Word == ".entry" || Word == ".func") {
      if (M.Version.empty())
        return errorAt(Start, "expected .version before the first function");
      return functionHeader(Word == ".entry", StartLine);
    }
    if (Error E = skipTrivia())
      return E;
    if (Cur >= End || *Cur != '.')
      break;
    Word = readWord();
  }
  // A variable or another declaration: up to ';' (initializers may hold
  // braces and span lines).
  while (Cur < End) {
    char C = *Cur;
    if (C == ';') {
      ++Cur;
      return Error::success();
    }
    if (C == '{' || C == '(') {
      if (Error E = skipBalanced(C, C == '{' ? '}' : ')'))
        return E;
      continue;
    }
    if (C == '\n') {
      newline();
      continue;
    }
    if (C == '/' && Cur + 1 < End && (Cur[1] == '/' || Cur[1] == '*')) {
      if (Error E = skipComment())
        return E;
      continue;
    }
    if (C == '}' || C == ')')
      return errorAt(Cur, Twine("unexpected '") + Twine(C) + "'");
    ++Cur;
  }
  return errorAt(Start, "expected ';' to end this declaration");
}

Error PtxScanner::functionHeader(bool IsEntry, uint32_t HeaderLine) {
  if (Error E = skipTrivia())
    return E;
  if (Cur < End && *Cur == '(') { // .func (.param ...) name
    if (Error E = skipBalanced('(', ')'))
      return E;
    if (Error E = skipTrivia())
      return E;
  }
  const char *NameStart = Cur;
  while (Cur < End && (isLabelChar(*Cur) || *Cur == '.' || *Cur == '%'))
    ++Cur;
  if (Cur == NameStart)
    return errorAt(Cur, "expected a function name");
  StringRef Name(NameStart, Cur - NameStart);
  PtxTuning Tuning;
  for (;;) {
    if (Error E = skipTrivia())
      return E;
    if (Cur >= End)
      return inputError(Path, HeaderLine, 0,
                        "function '" + Name +
                            "' has no body: the file ends in its header");
    char C = *Cur;
    if (C == '(') { // the parameter list, over as many lines as it takes
      if (Error E = skipBalanced('(', ')'))
        return E;
    } else if (C == '.') { // .reqntid 128, 1, 1 / .noreturn / .attribute(..)
      if (Error E = headerDirective(Tuning))
        return E;
    } else if (C == ';') { // a declaration (.extern, a prototype)
      ++Cur;
      M.Declarations.push_back({Name, IsEntry, HeaderLine});
      return Error::success();
    } else if (C == '{') {
      break;
    } else {
      return errorAt(Cur, "expected '{' to open the body of '" + Name +
                              "' or ';' to end its declaration");
    }
  }
  M.Functions.emplace_back();
  PtxFunction &F = M.Functions.back();
  F.Name = Name;
  F.IsEntry = IsEntry;
  F.Line = HeaderLine;
  F.Tuning = std::move(Tuning);
  return functionBody(F);
}

Error PtxScanner::headerDirective(PtxTuning &T) {
  const char *At = Cur;
  StringRef Word = readWord();
  // `.attribute(.unified(...))` and the like: a parenthesized argument.
  if (Cur < End && *Cur == '(')
    if (Error E = skipBalanced('(', ')'))
      return E;
  // Numeric operands, comma-separated, on the directive's line.
  SmallVector<uint32_t, 3> Nums;
  for (;;) {
    skipBlanks();
    if (Cur >= End || !isDigit(*Cur))
      break;
    const char *NumAt = Cur;
    uint32_t V = 0;
    if (!parseDecimal(Cur, End, V))
      return errorAt(NumAt,
                     "the operand of " + Word + " does not fit in 32 bits");
    Nums.push_back(V);
    skipBlanks();
    if (Cur < End && *Cur == ',') {
      ++Cur;
      continue;
    }
    break;
  }
  auto One = [&](uint32_t &Out) -> Error {
    if (Nums.size() != 1)
      return errorAt(At, "expected one number after " + Word);
    Out = Nums[0];
    return Error::success();
  };
  auto UpTo3 = [&](SmallVector<uint32_t, 3> &Out) -> Error {
    if (Nums.empty() || Nums.size() > 3)
      return errorAt(At, "expected one to three numbers after " + Word);
    Out = Nums;
    return Error::success();
  };
  if (Word == ".reqntid")
    return UpTo3(T.ReqNtid);
  if (Word == ".maxntid")
    return UpTo3(T.MaxNtid);
  if (Word == ".reqnctapercluster")
    return UpTo3(T.ReqNctaPerCluster);
  if (Word == ".maxnreg")
    return One(T.MaxNReg);
  if (Word == ".minnctapersm")
    return One(T.MinNCtaPerSm);
  if (Word == ".maxnctapersm")
    return One(T.MaxNCtaPerSm);
  if (Word == ".maxclusterrank")
    return One(T.MaxClusterRank);
  if (Word == ".noreturn")
    T.NoReturn = true;
  else if (Word == ".explicitcluster")
    T.ExplicitCluster = true;
  // Others (.pragma "...", .blocksareclusters, .abi_preserve N, future
  // ones) are kept out of the model; a quoted argument is skipped whole.
  skipBlanks();
  if (Cur < End && *Cur == '"') {
    const char *Q = static_cast<const char *>(
        memchr(Cur + 1, '"', lineEnd(Cur, End) - (Cur + 1)));
    if (!Q)
      return errorAt(Cur, "unterminated string after " + Word);
    Cur = Q + 1;
  }
  return Error::success();
}

uint32_t PtxScanner::findLabel(StringRef Name, uint32_t Scope) const {
  // LabelOrder sorts label indices by (name, scope); walk the scope chain
  // outwards and take the first definition in the nearest scope.
  for (uint32_t S = Scope;; S = ScopeParent[S]) {
    auto It = std::lower_bound(
        LabelOrder.begin(), LabelOrder.end(), std::make_pair(Name, S),
        [&](uint32_t I, const std::pair<StringRef, uint32_t> &Key) {
          const PtxLabel &L = Labels[I];
          return L.Name < Key.first ||
                 (L.Name == Key.first && L.Scope < Key.second);
        });
    if (It != LabelOrder.end() && Labels[*It].Name == Name &&
        Labels[*It].Scope == S)
      return Labels[*It].Instruction;
    if (S == 0)
      return NoIndex;
  }
}

Error PtxScanner::functionBody(PtxFunction &F) {
  uint32_t OpenLine = Line;
  ++Cur; // '{'
  Fn = &F;
  Insts.clear();
  Labels.clear();
  Branches.clear();
  Tables.clear();
  ScopeParent.assign(1, 0);
  CurLoc = DebugLoc();
  InlineAsm = false;
  LastWasLabel = false;
  SmallVector<uint32_t, 8> Scopes{0};
  for (;;) {
    skipSpace();
    if (Cur >= End)
      return inputError(Path, OpenLine, 0,
                        "the body of '" + F.Name +
                            "' is not closed: the file ends inside it");
    const char *Start = Cur;
    char C = *Cur;
    if (C == '/') {
      if (Cur + 1 < End && Cur[1] == '/') {
        // "// begin inline asm" / "// end inline asm"
        const char *P = Cur + 2;
        while (P < End && isBlank(*P))
          ++P;
        if (startsWith(P, End, "begin inline asm"))
          InlineAsm = true;
        else if (startsWith(P, End, "end inline asm"))
          InlineAsm = false;
        skipToLineEnd();
        continue;
      }
      if (Error E = skipComment())
        return E;
      continue;
    }
    if (C == '{') {
      ++Cur;
      uint32_t Id = ScopeParent.size();
      ScopeParent.push_back(Scopes.back());
      Scopes.push_back(Id);
      LastWasLabel = false;
      continue;
    }
    if (C == '}') {
      ++Cur;
      Scopes.pop_back();
      if (Scopes.empty())
        return finishFunction(F);
      LastWasLabel = false;
      continue;
    }
    if (C == '.') {
      if (Error E = bodyDirective(Scopes.back()))
        return E;
      continue;
    }
    if (C == '@' || isLabelChar(C)) {
      const char *OpEnd = nullptr, *After = nullptr; // once the word is read
      if (C != '@') {
        // A label is an identifier followed by ':' (not "::"): only a
        // word with a ':' in it or after it can be one.
        bool Colon;
        OpEnd = findOpcodeEnd(Cur, End, Colon);
        After = OpEnd;
        while (After < End && isBlank(*After))
          ++After;
        if (Colon || (After < End && *After == ':')) {
          const char *P = Cur;
          while (P < End && isLabelChar(*P))
            ++P;
          const char *Q = P;
          while (Q < End && isBlank(*Q))
            ++Q;
          if (Q < End && *Q == ':' && !(Q + 1 < End && Q[1] == ':')) {
            PtxLabel L;
            L.Name = StringRef(Cur, P - Cur);
            L.Instruction = Insts.size();
            L.Line = Line;
            L.Scope = Scopes.back();
            Labels.push_back(L);
            Cur = Q + 1;
            LastWasLabel = true;
            continue;
          }
        }
      }
      if (Error E = instruction(Start, Scopes.back(), OpEnd, After))
        return E;
      LastWasLabel = false;
      continue;
    }
    if (C == ';') { // empty statement
      ++Cur;
      continue;
    }
    return errorAt(Cur, "expected an instruction, label or directive");
  }
}

Error PtxScanner::bodyDirective(uint32_t Scope) {
  const char *Start = Cur;
  // The statement may span lines: errorAt(Start) points at where it
  // starts, and so does the declaration's line.
  uint32_t StartLine = Line;
  StringRef Word = readWord();
  if (Word == ".loc") {
    LastWasLabel = false;
    return parseLoc();
  }
  if (Word == ".file")
    return parseFile();
  Expected<StringRef> Tail = statementTail(Start);
  if (!Tail)
    return Tail.takeError();
  if (Word == ".branchtargets" && LastWasLabel && !Labels.empty())
    Tables.push_back({Labels.back().Name, Scope, Tail->trim()});
  LastWasLabel = false;
  if (Word == ".local" && Fn) {
    uint64_t Align = 1;
    Expected<uint64_t> Bytes = localBytes(*Tail, Start, Align);
    if (!Bytes)
      return Bytes.takeError();
    if (!Fn->LocalLine)
      Fn->LocalLine = StartLine;
    // Laid out in order, each at its alignment (ptxas's frame: depot 4
    // at .align 4 then 40 at .align 8 take 48 bytes).
    Fn->LocalBytes = alignTo(Fn->LocalBytes, Align) + *Bytes;
    if (Fn->LocalBytes > (uint64_t(1) << 32))
      return errorAt(Start, "more than 4 GiB of .local memory declared");
  }
  return Error::success();
}

/// The bytes a `.local` declaration reserves: `.align 4 .b8 __local_depot0
/// [28]` is 28, `.v4 .f32 x[2]` 32, `.u64 y` 8.
Expected<uint64_t> PtxScanner::localBytes(StringRef Decl, const char *At,
                                          uint64_t &Align) {
  uint64_t Elem = 0, Vec = 1, Count = 1;
  SmallVector<StringRef, 8> Words;
  Decl.split(Words, ' ', -1, false);
  bool AlignNext = false;
  for (StringRef W : Words) {
    W = W.trim();
    if (AlignNext) {
      AlignNext = false;
      if (W.getAsInteger(10, Align) || !isPowerOf2_64(Align) || Align > 4096)
        return errorAt(At, "expected a power of two up to 4096 after .align");
      continue;
    }
    if (W == ".align") {
      AlignNext = true;
      continue;
    }
    if (W.size() > 2 && W[0] == '.' && (W[1] == 'v') && isDigit(W[2])) {
      W.drop_front(2).getAsInteger(10, Vec);
      continue;
    }
    if (W.size() > 2 && W[0] == '.' && strchr("bsuf", W[1]) && isDigit(W[2])) {
      unsigned Bits = 0;
      if (!W.drop_front(2).getAsInteger(10, Bits) && Bits % 8 == 0)
        Elem = Bits / 8;
      continue;
    }
    // name[N][M]...
    for (size_t B = W.find('['); B != StringRef::npos; B = W.find('[', B + 1)) {
      size_t E = W.find(']', B);
      uint64_t N = 0;
      if (E == StringRef::npos || W.slice(B + 1, E).getAsInteger(10, N) ||
          N > (uint64_t(1) << 32))
        return errorAt(At, "expected a bounded array size in this .local "
                           "declaration");
      Count *= N;
      if (Count > (uint64_t(1) << 32))
        return errorAt(At, "more than 4 GiB of .local memory declared");
    }
  }
  if (!Elem)
    return errorAt(At, "expected an element type (.b8, .u32, ...) in this "
                       ".local declaration");
  Align = std::max(Align, Elem * Vec);
  return Elem * Vec * Count;
}

Error PtxScanner::instruction(const char *Start, uint32_t Scope,
                              const char *OpEnd, const char *After) {
  // Made in place (no copy of the instruction per statement); an error
  // ends the parse, and the module with it.
  uint32_t Index = Insts.size();
  PtxInstruction &I = Insts.emplace_back();
  I.InInlineAsm = InlineAsm;
  I.Loc = CurLoc;
  if (*Cur == '@') {
    ++Cur;
    if (Cur < End && *Cur == '!') {
      I.PredicateNegated = true;
      ++Cur;
    }
    const char *P = Cur;
    while (Cur < End && (isLabelChar(*Cur) || *Cur == '%'))
      ++Cur;
    if (Cur == P)
      return errorAt(Start, "expected a predicate register after '@'");
    I.Predicate = StringRef(P, Cur - P);
    skipBlanks();
    if (Cur >= End || !(isLabelChar(*Cur)))
      return errorAt(Cur, "expected an opcode after the predicate");
  }
  const char *Op = Cur;
  bool Colon;
  const char *P = OpEnd ? OpEnd : findOpcodeEnd(Op, End, Colon);
  Cur = OpEnd ? After : P; // blanks hold no ';', newline or comment
  I.Opcode = StringRef(Op, P - Op);
  I.Line = Line;
  I.Column = column(Op);
  Expected<StringRef> Tail = statementTail(Op);
  if (!Tail)
    return Tail.takeError();
  I.Operands = trim(Tail->begin(), Tail->end());

  // A transfer of control, by the opcode up to its first '.' (asked by
  // the first byte: most opcodes are none).
  auto BaseIs = [&](StringRef W) {
    return I.Opcode.starts_with(W) &&
           (I.Opcode.size() == W.size() || I.Opcode[W.size()] == '.');
  };
  switch (I.Opcode[0]) {
  case 'b':
    if (BaseIs("bra")) {
      I.Kind = Flow::Branch;
      if (I.Operands.empty())
        return errorAtLine(I.Line, I.Column,
                           "expected a label after '" + I.Opcode + "'");
      Branches.push_back(
          {Index, I.operands().front(), Scope, I.Line, I.Column});
    } else if (BaseIs("brx")) {
      I.Kind = Flow::IndirectBranch;
      SmallVector<StringRef, 4> Ops = I.operands();
      Branches.push_back({Index, Ops.size() > 1 ? Ops[1] : StringRef(), Scope,
                          I.Line, I.Column});
    }
    break;
  case 'c':
    if (BaseIs("call"))
      I.Kind = Flow::Call;
    break;
  case 'r':
    if (BaseIs("ret"))
      I.Kind = Flow::Return;
    break;
  case 'e':
    if (BaseIs("exit"))
      I.Kind = Flow::Exit;
    break;
  case 't':
    if (BaseIs("trap"))
      I.Kind = Flow::Trap;
    break;
  }
  return Error::success();
}

Error PtxScanner::finishFunction(PtxFunction &F) {
  uint32_t N = Insts.size();
  LabelOrder.resize(Labels.size());
  for (uint32_t I = 0; I < Labels.size(); ++I)
    LabelOrder[I] = I;
  std::stable_sort(
      LabelOrder.begin(), LabelOrder.end(), [&](uint32_t A, uint32_t B) {
        const PtxLabel &X = Labels[A], &Y = Labels[B];
        return X.Name < Y.Name || (X.Name == Y.Name && X.Scope < Y.Scope);
      });
  std::vector<Transfer> Transfers;
  Transfers.reserve(Branches.size() + 8);
  size_t BI = 0;
  for (uint32_t I = 0; I < N; ++I) {
    PtxInstruction &In = Insts[I];
    if (In.Kind == Flow::None || In.Kind == Flow::Call)
      continue;
    Transfer T;
    T.Inst = I;
    T.Kind = In.Kind;
    T.Conditional = !In.Predicate.empty();
    if (In.Kind == Flow::Branch || In.Kind == Flow::IndirectBranch) {
      const PendingBranch &B = Branches[BI++];
      if (In.Kind == Flow::Branch) {
        uint32_t Tgt = findLabel(B.Name, B.Scope);
        if (Tgt == NoIndex)
          return errorAtLine(B.Line, B.Column,
                             "branch to undefined label '" + B.Name + "'");
        In.Target = Tgt;
        T.Targets.push_back(Tgt);
      } else {
        // brx.idx %r, TABLE: TABLE names a .branchtargets list.
        for (uint32_t S = B.Scope;; S = ScopeParent[S]) {
          auto It = std::find_if(Tables.begin(), Tables.end(),
                                 [&](const BranchTargets &X) {
                                   return X.Scope == S && X.Name == B.Name;
                                 });
          if (It != Tables.end()) {
            SmallVector<StringRef, 8> Names;
            It->List.split(Names, ',');
            for (StringRef Nm : Names) {
              uint32_t Tgt = findLabel(Nm.trim(), B.Scope);
              if (Tgt == NoIndex)
                return errorAtLine(B.Line, B.Column,
                                   "branch table entry '" + Nm.trim() +
                                       "' is not a label of this function");
              T.Targets.push_back(Tgt);
            }
            break;
          }
          if (S == 0)
            break;
        }
      }
    }
    Transfers.push_back(std::move(T));
  }
  // Hand the scratch vector over (one function per file is the rule) and
  // size the next one from the statements left.
  F.Instructions.swap(Insts);
  StatementsLeft -= std::min<size_t>(StatementsLeft, N);
  Insts.clear();
  Insts.reserve(StatementsLeft);
  F.Labels = Labels;
  F.CF = buildControlFlow(N, Transfers);
  return Error::success();
}

} // namespace

Expected<std::unique_ptr<PtxModule>>
parsePtx(std::unique_ptr<MemoryBuffer> Buffer, StringRef Path) {
  auto M = std::make_unique<PtxModule>();
  M->Path = Path.str();
  M->Buffer = std::move(Buffer);
  PtxScanner S(*M, Path);
  if (Error E = S.run())
    return E;
  return M;
}

std::string readPtxTarget(StringRef Path) {
  auto Buf = openArtifact(Path, Content::Text);
  if (!Buf) {
    consumeError(Buf.takeError());
    return {};
  }
  // .target comes right after .version, before any function.
  StringRef Text = (*Buf)->getBuffer().take_front(1 << 16);
  while (!Text.empty()) {
    auto [Line, Rest] = Text.split('\n');
    Text = Rest;
    Line = Line.split("//").first.trim();
    if (Line.starts_with(".entry") || Line.starts_with(".visible") ||
        Line.starts_with(".func") || Line.starts_with(".extern"))
      break;
    if (Line.consume_front(".target") && (Line.empty() || isBlank(Line[0])))
      return Line.split(',').first.trim().str();
  }
  return {};
}

Expected<std::unique_ptr<PtxModule>> parsePtx(StringRef Path) {
  auto Buf = openArtifact(Path, Content::Text);
  if (!Buf)
    return Buf.takeError();
  return parsePtx(std::move(*Buf), Path);
}

} // namespace gestell
