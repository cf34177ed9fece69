//===- gestell/Sass.h - SASS view (nvdisasm and cuobjdump formats) --------===//
//
// Machine code as text. Four renderings exist and are told apart by
// content, never by file name: nvdisasm (`nvdisasm -c -gi`, with `//## File`
// line info and `.L_x_N` labels), cuobjdump (`cuobjdump -sass`, with
// encodings and absolute branch targets), triton (what TRITON_KERNEL_DUMP
// writes as <name>.sass: triton.tools.disasm's rewrite of cuobjdump, each
// instruction after its decoded control code, `02:-:-:Y:4<tab>...`, with
// BRA targets as `LBBn` labels, no addresses, encodings or line info), and
// tritonparse (nvdisasm's lines under a `Function:<name>` header). All
// give the same instruction sequence for the same cubin; the triton one's
// addresses are counted, 16 bytes per instruction, as cuobjdump prints them.
// Line info naming `.nv_debug_ptx_txt` (nvdisasm -gp: a line of the PTX
// embedded in the cubin) is not a source frame and is skipped.
//
// Lines the disassembler printed about itself (a listing captured with
// `2>&1`) are skipped and counted (SassModule::ToolMessages); an error it
// printed, and any other line that is none of the above, is an InputError
// at that line.
//
// A function is one `.text.<name>` section (nvdisasm), one `Function :
// <name>` listing (cuobjdump) or one `Function:<name>` (triton); the
// subroutines ptxas appends to a kernel (`$__internal_0_$__cuda_sm10x_...`)
// stay inside it, as labels.
//
// Control flow: BRA, JMP (branch; BRA.U with a predicate operand and any
// guarded branch are conditional), BRX, JMX (indirect: to the labels of
// nvdisasm's `(*"BRANCH_TARGETS .L_x_2,.L_x_13"*)` annotation when it
// prints one, else no known successor),
// CALL (call), RET (return), EXIT, KILL (exit), BPT.TRAP (trap). Not
// branches: BSSY Bn (names the reconvergence point, the instruction after
// the BSYNC Bn that closes the region; kept in CodeAddress), BSYNC, BREAK
// (leaves a convergence barrier), WARPSYNC, YIELD, NANOSLEEP.
//
//===----------------------------------------------------------------------===//
#ifndef GESTELL_SASS_H
#define GESTELL_SASS_H

#include "gestell/ControlFlow.h"

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"
#include "llvm/Support/MemoryBuffer.h"

#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace gestell {

/// TritonParse is TritonParse's rendering (TRITONPARSE_DUMP_SASS: its
/// tools/disasm.py runs `nvdisasm -c -gp -g -gi` and keeps what follows the
/// first kernel's `.text.<name>:` under one `Function:<name>` line): nvdisasm
/// instruction lines, labels and line info, read like nvdisasm's.
enum class SassFormat { Nvdisasm, Cuobjdump, Triton, TritonParse };

/// "nvdisasm", "cuobjdump", "triton" or "tritonparse".
const char *sassFormatName(SassFormat F);

inline constexpr uint64_t NoAddress = UINT64_MAX;

/// One frame of nvdisasm line info; inlined frames chain through InlinedAt
/// (innermost first, as nvdisasm -gi prints them).
struct SassLineFrame {
  llvm::StringRef File;
  uint32_t Line = 0;
  uint32_t InlinedAt = NoIndex; ///< index into SassModule::Frames
  uint32_t SassLine = 0;        ///< line of the `//## File` comment
};

struct SassInstruction {
  uint64_t Address = 0;
  llvm::StringRef Predicate; ///< "P0", "UP1", "PT" for "@!PT"..., else empty
  bool PredicateNegated = false;
  Flow Kind = Flow::None;   ///< what it does to control flow
  llvm::StringRef Opcode;   ///< with modifiers: "WARPGROUP.DEPBAR.LE"
  llvm::StringRef Operands; ///< raw operand text without ';' and without
                            ///< the scheduling annotations
  llvm::StringRef Schedule; ///< "&wr=0x0 ?trans1" (sm_120 listings), the
                            ///< control code "02:-:-:Y:4" (triton), or ""
  uint32_t Line = 0;        ///< 1-based line in the SASS file
  uint32_t Column = 0;      ///< 1-based column of the opcode
  /// The operand that names a code address, as written: "`(.L_x_0)" or
  /// "`(attn_fwd)" (nvdisasm), "0x330" (cuobjdump), "LBB0" or "0x330"
  /// (triton); empty when none.
  llvm::StringRef CodeOperand;
  /// The address CodeOperand names (branch or call target, BSSY
  /// reconvergence point, RET base, LEPC operand), or NoAddress. In
  /// cuobjdump listings it is the trailing hex operand of BRA, JMP, CALL,
  /// BSSY, RET and LEPC, the opcodes nvdisasm prints with a label.
  uint64_t CodeAddress = NoAddress;
  /// Where a branch or call goes when that is known statically, else
  /// NoAddress. Equal to CodeAddress for Branch and Call.
  uint64_t BranchTarget = NoAddress;
  uint32_t Frame = NoIndex; ///< innermost line-info frame (nvdisasm -gi)

  llvm::StringRef baseOpcode() const {
    return Opcode.substr(0, Opcode.find('.')); // find(char): memchr
  }
};

/// A label of an nvdisasm listing (`.L_x_3:`, a subroutine's symbol) or of
/// a triton one (`LBB0:`).
struct SassLabel {
  llvm::StringRef Name;
  uint64_t Address = 0;
  uint32_t Line = 0;
};

struct SassFunction {
  std::string Name;
  uint32_t Line = 0; ///< line of `.section .text.<name>` / `Function : <name>`
  /// The instructions the hardware can execute, in address order. Lines
  /// guarded by the never-true predicate (`@!PT`, `@!UPT`: ptxas's
  /// `@!PT LDS RZ, [RZ] ;` fillers) are not among them: they are counted in
  /// NeverExecuted, and a label or branch target naming one names the next
  /// instruction (a never-executed line does nothing).
  std::vector<SassInstruction> Instructions;
  uint32_t NeverExecuted = 0;
  std::vector<SassLabel> Labels;             ///< nvdisasm and triton
  ControlFlow CF;

  /// Index of the instruction at Address, or NoIndex.
  uint32_t indexOf(uint64_t Address) const;
  /// Index of the first instruction at or after Address (where execution
  /// continues when Address held a never-executed line), or NoIndex.
  uint32_t indexAtOrAfter(uint64_t Address) const;
};

struct SassModule {
  std::string Path;
  SassFormat Format = SassFormat::Nvdisasm;
  /// "sm_100a": from `.target`, `code for sm_...`, else from .headerflags
  /// (EF_CUDA_SM90 + EF_CUDA_ACCELERATORS -> "sm_90a"); "" when absent.
  std::string Target;
  std::vector<SassFunction> Functions;
  std::vector<SassLineFrame> Frames;
  /// Lines the disassembler printed about itself (`nvdisasm warning : ...`,
  /// `cuobjdump info : ...`: a listing captured with its stderr), skipped:
  /// how many, and the first one with its line.
  uint32_t ToolMessages = 0;
  uint32_t FirstToolMessageLine = 0;
  std::string FirstToolMessage;
  std::unique_ptr<llvm::MemoryBuffer> Buffer;

  /// Number of (executable) instructions over all functions.
  size_t instructionCount() const;
  /// Lines under `@!PT`/`@!UPT` left out of every function, in total.
  size_t neverExecutedCount() const;
};

/// Detects the format from the text itself, or nullopt when it is neither.
std::optional<SassFormat> detectSassFormat(llvm::StringRef Text);

/// A .sass shorter than this that holds no listing, only a disassembler's
/// error (`nvdisasm ... 2>&1` from an nvdisasm older than the cubin), is
/// the kernel without SASS: parseSass gives MissingStage(SASS), not an
/// InputError.
inline constexpr size_t MaxDisassemblerErrorBytes = 4096;

/// Parses either format. Unknown opcodes and directives are kept; text that
/// is not SASS, a truncated listing, or a malformed instruction line is an
/// InputError naming the file and line.
llvm::Expected<std::unique_ptr<SassModule>> parseSass(llvm::StringRef Path);
llvm::Expected<std::unique_ptr<SassModule>>
parseSass(std::unique_ptr<llvm::MemoryBuffer> Buffer, llvm::StringRef Path);

} // namespace gestell

#endif
