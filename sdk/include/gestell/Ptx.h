//===- gestell/Ptx.h - PTX view -------------------------------------------===//
//
// A PTX file as Triton writes it (LLVM NVPTX back end): version, target,
// functions with their instructions, labels, control flow and .loc source
// mapping. Text fields are StringRefs into the mapped file, which the module
// owns; nothing is copied per instruction.
//
// What counts as an instruction: every statement in a function body that is
// not a directive (.reg, .loc, ...), a label or a brace, including the ones
// inside inline asm regions ("// begin inline asm" ... "// end inline asm"),
// which are real PTX: several per region, `{ ... }` scopes with their own
// .reg declarations and labels, several statements per line.
//
// Control flow: bra/bra.uni (branch), brx.idx (indirect, targets from its
// .branchtargets list), call (call), ret (return), exit (exit), trap (trap).
// Labels inside a `{ }` scope are local to it: Triton's mbarrier wait loops
// reuse `waitLoop:` in every inline asm block.
//
//===----------------------------------------------------------------------===//
#ifndef GESTELL_PTX_H
#define GESTELL_PTX_H

#include "gestell/ControlFlow.h"

#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"
#include "llvm/Support/MemoryBuffer.h"

#include <memory>
#include <string>
#include <vector>

namespace gestell {

/// A source position from debug info: file index (into the module's Files,
/// 0 = none), 1-based line, column (0 = unknown).
struct DebugLoc {
  uint32_t File = 0;
  uint32_t Line = 0;
  uint32_t Column = 0;
  bool isValid() const { return File != 0 && Line != 0; }
};

struct PtxInstruction {
  llvm::StringRef Predicate; ///< "%p2" for "@%p2" / "@!%p2", else empty
  bool PredicateNegated = false;
  bool InInlineAsm = false;  ///< between "// begin inline asm" and "// end
                             ///< inline asm"
  Flow Kind = Flow::None;    ///< what it does to control flow
  llvm::StringRef Opcode;    ///< with every modifier:
                             ///< "ldmatrix.sync.aligned.m8n8.x1.shared.b16"
  llvm::StringRef Operands;  ///< raw operand text, trimmed, without ';'
  uint32_t Line = 0;         ///< 1-based line of the opcode in the .ptx file
  uint32_t Column = 0;       ///< 1-based column of the opcode
  DebugLoc Loc;              ///< from the nearest preceding .loc
  uint32_t Target = NoIndex; ///< branch: index of the target instruction

  /// Opcode up to the first '.': "ldmatrix".
  llvm::StringRef baseOpcode() const {
    return Opcode.substr(0, Opcode.find('.')); // find(char): memchr
  }
  /// Operands split at top-level commas (braces, brackets and parentheses
  /// respected), each trimmed.
  llvm::SmallVector<llvm::StringRef, 4> operands() const;
};

struct PtxLabel {
  llvm::StringRef Name; ///< "$L__BB0_2"
  uint32_t Instruction; ///< index of the next instruction
  uint32_t Line = 0;
  uint32_t Scope = 0; ///< 0 = function body, else a `{ }` block inside it
};

/// The performance-tuning directives of a function header (PTX ISA
/// "Performance-Tuning Directives"), 0 / empty when absent.
struct PtxTuning {
  llvm::SmallVector<uint32_t, 3> ReqNtid; ///< .reqntid x[, y[, z]]
  llvm::SmallVector<uint32_t, 3> MaxNtid; ///< .maxntid x[, y[, z]]
  llvm::SmallVector<uint32_t, 3> ReqNctaPerCluster; ///< .reqnctapercluster
  uint32_t MaxNReg = 0;       ///< .maxnreg
  uint32_t MinNCtaPerSm = 0;  ///< .minnctapersm
  uint32_t MaxNCtaPerSm = 0;  ///< .maxnctapersm
  uint32_t MaxClusterRank = 0; ///< .maxclusterrank
  bool NoReturn = false;       ///< .noreturn
  bool ExplicitCluster = false; ///< .explicitcluster
};

/// A function declared without a body (`.extern .func __assertfail(...)
/// .noreturn;`, a prototype).
struct PtxDeclaration {
  llvm::StringRef Name;
  bool IsEntry = false;
  uint32_t Line = 0;
};

struct PtxFunction {
  llvm::StringRef Name;
  bool IsEntry = false; ///< .entry (kernel) vs .func
  uint32_t Line = 0;    ///< line of the .entry/.func directive
  PtxTuning Tuning;
  /// Local memory the PTX itself declares in the body (`.local .align 4 .b8
  /// __local_depot0[28];`: libdevice's sin/cos tables, local arrays), in
  /// bytes, and the line of the first declaration (0 when none). Not a
  /// spill: ptxas's stack frame holds it beside any spills.
  uint64_t LocalBytes = 0;
  uint32_t LocalLine = 0;
  std::vector<PtxInstruction> Instructions;
  std::vector<PtxLabel> Labels;
  ControlFlow CF;
};

/// One .loc directive, as written (for cross-checks and source views).
struct PtxLocDirective {
  DebugLoc Loc;
  DebugLoc InlinedAt;      ///< from ", inlined_at F L C" when present
  uint32_t Line = 0;       ///< line of the directive in the .ptx file
  llvm::StringRef Comment; ///< trailing comment without "//", trimmed:
                           ///< "triton_kernels.py:42:0"
};

struct PtxModule {
  std::string Path;
  llvm::StringRef Version; ///< "8.8"
  llvm::StringRef Target;  ///< "sm_100a" (the .target list as written)
  llvm::StringRef AddressSize;
  std::vector<std::string> Files;     ///< .file table; index 0 is "" (none)
  std::vector<PtxFunction> Functions; ///< with bodies, in file order
  std::vector<PtxDeclaration> Declarations; ///< without bodies
  std::vector<PtxLocDirective> Locs;  ///< every .loc, in file order
  std::unique_ptr<llvm::MemoryBuffer> Buffer; ///< owns the text

  /// "file:line" (or "file:line:col") of a debug location, "" when invalid
  /// or when its file is not in the table.
  std::string describe(DebugLoc L) const;
  /// Number of instructions over all functions.
  size_t instructionCount() const;
};

/// The first entry of the `.target` directive of a .ptx file ("sm_90a"),
/// read from the head of the file without parsing it; "" when the file has
/// none before its first function or cannot be read.
std::string readPtxTarget(llvm::StringRef Path);

/// Parses a .ptx file. Unknown directives and opcodes are kept, not rejected;
/// malformed structure (no .version, unterminated function body or
/// statement, invalid UTF-8, ...) is an InputError naming the file and line.
llvm::Expected<std::unique_ptr<PtxModule>> parsePtx(llvm::StringRef Path);
llvm::Expected<std::unique_ptr<PtxModule>>
parsePtx(std::unique_ptr<llvm::MemoryBuffer> Buffer, llvm::StringRef Path);

} // namespace gestell

#endif
