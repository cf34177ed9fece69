//===- gestell/Ptx.h - PTX view -------------------------------------------===//
//
// A PTX file as Triton writes it (LLVM NVPTX back end): version, target,
// functions with their instructions, labels, control flow and .loc source
// mapping. Text fields are StringRefs into the mapped file, which the module
// owns; nothing is copied per instruction.
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
  llvm::StringRef Opcode;    ///< with every modifier: "ldmatrix.sync.aligned.m8n8.x1.shared.b16"
  llvm::StringRef Operands;  ///< raw operand text, trimmed, without ';'
  uint32_t Line = 0;         ///< 1-based line of the opcode in the .ptx file
  uint32_t Column = 0;       ///< 1-based column of the opcode
  DebugLoc Loc;              ///< from the nearest preceding .loc
  bool InInlineAsm = false;  ///< between "// begin inline asm" and "// end inline asm"

  /// Opcode up to the first '.': "ldmatrix".
  llvm::StringRef baseOpcode() const { return Opcode.split('.').first; }
  /// Operands split at top-level commas (braces and brackets respected).
  llvm::SmallVector<llvm::StringRef, 4> operands() const;
};

struct PtxLabel {
  llvm::StringRef Name;   ///< "$L__BB0_2"
  uint32_t Instruction;   ///< index of the next instruction
  uint32_t Line = 0;
};

struct PtxFunction {
  llvm::StringRef Name;
  bool IsEntry = false;   ///< .entry (kernel) vs .func
  uint32_t Line = 0;      ///< line of the .entry/.func directive
  std::vector<PtxInstruction> Instructions;
  std::vector<PtxLabel> Labels;
  ControlFlow CF;
};

struct PtxModule {
  std::string Path;
  llvm::StringRef Version; ///< "8.8"
  llvm::StringRef Target;  ///< "sm_100a"
  llvm::StringRef AddressSize;
  std::vector<std::string> Files; ///< .file table; index 0 is "" (none)
  std::vector<PtxFunction> Functions;
  std::unique_ptr<llvm::MemoryBuffer> Buffer; ///< owns the text

  /// "file:line" of a debug location, or "" when invalid.
  std::string describe(DebugLoc L) const;
};

/// Parses a .ptx file. Unknown directives and opcodes are kept, not rejected;
/// malformed structure (unterminated function body, ...) is an InputError
/// naming the file and line.
llvm::Expected<std::unique_ptr<PtxModule>> parsePtx(llvm::StringRef Path);
llvm::Expected<std::unique_ptr<PtxModule>>
parsePtx(std::unique_ptr<llvm::MemoryBuffer> Buffer, llvm::StringRef Path);

} // namespace gestell

#endif
