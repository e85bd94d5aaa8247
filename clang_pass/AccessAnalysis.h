//===- AccessAnalysis.h - what the commhint pass records -------*- C++ -*-===//
//
// The analysis half of the pass: for one function it decides which memory
// accesses matter, groups them into statements (sites), finds the memcpy /
// memset and MPI call sites and describes the function's loops.  It does not
// change the IR; CommhintPass.cpp inserts the calls the resulting plan asks
// for.
//
//===----------------------------------------------------------------------===//

#ifndef COMMHINT_CLANG_PASS_ACCESSANALYSIS_H
#define COMMHINT_CLANG_PASS_ACCESSANALYSIS_H

#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/STLFunctionalExtras.h"
#include "llvm/ADT/SmallVector.h"

#include <cstdint>
#include <string>
#include <vector>

namespace llvm {
class AllocaInst;
class BasicBlock;
class DataLayout;
class DILocation;
class Function;
class Instruction;
class CallBase;
class CallInst;
class Loop;
class LoopInfo;
class PostDominatorTree;
class Value;
} // namespace llvm

namespace commhint {

/// One traced access of a COMP site, in program order.
struct Access {
  llvm::Instruction *Inst; // load, store, atomicrmw or cmpxchg
  llvm::Value *Ptr;        // the address recorded
  uint32_t Size;           // bytes
  uint32_t Flags;          // CHT_ACCESS_READ / CHT_ACCESS_WRITE
  bool IsVector;           // a vector-typed access
};

/// One entry of the site table and where its call goes.
struct Site {
  uint8_t Kind = 0; // enum cht_site_kind
  uint8_t Op = 0;   // enum cht_site_op
  uint32_t Flags = 0;
  std::string File;
  std::string Func;
  uint32_t Line = 0;
  uint16_t Col = 0;
  int Loop = -1; // index into FunctionPlan::Loops, -1 if none
  uint32_t Cost = 0; // CHT_COST_* units per execution (SiteCost.h)
  llvm::SmallVector<Access, 4> Accesses;
  // COMP: the last access, the event call goes right after it.
  // MEMCPY/MEMSET/CALL: the call, the event call goes right before it.
  llvm::Instruction *Anchor = nullptr;
  // MEMCPY/MEMSET operands (Src is null for memset).
  llvm::Value *Dst = nullptr, *Src = nullptr, *Len = nullptr;
  // MEMSET with CHT_SITEF_HEAP: an allocation (Dst is the call: the event
  // goes right after it; Len times Len2 bytes, Len2 null but for calloc)
  // or a free (Dst the block, Len null: its size at run time).
  enum HeapKind : uint8_t { NotHeap, HeapAlloc, HeapFree } Heap = NotHeap;
  llvm::Value *Len2 = nullptr;
  // MEMSET of an MPI query's output argument (MPI_Comm_rank's rank, ...):
  // the event goes right after the call; Len bytes (times Len2, at most
  // 64, when the length is an element count).
  bool QueryOut = false;
  // CALL of code the pass may not have compiled (a declaration, a function
  // pointer) handing a pointer into the program's memory: the runtime
  // records it as a fence when the callee is not instrumented
  // (__commhint_extern_call before the call, no __commhint_mpi_site).
  bool Extern = false;
};

/// One natural loop of the function.
struct LoopDesc {
  llvm::Loop *L = nullptr;
  std::string File;
  std::string Func;
  uint32_t Line = 0;
  uint16_t Col = 0;
  uint16_t Depth = 0;
  int Parent = -1; // index into FunctionPlan::Loops, -1 if outermost
  // Where enter goes (end of the preheader); null if the loop could not be
  // put in simplified form, then it is not instrumented.
  llvm::BasicBlock *Preheader = nullptr;
  llvm::BasicBlock *Header = nullptr; // where iter goes (first insertion point)
};

/// An exit block and the outermost loop the edges into it leave.
struct LoopExit {
  llvm::BasicBlock *Block;
  int Loop; // index into FunctionPlan::Loops
};

struct FunctionPlan {
  std::vector<Site> Sites;
  std::vector<LoopDesc> Loops;
  std::vector<LoopExit> Exits;
  unsigned MaxAddrs = 0; // largest access count of a COMP site
};

/// Computes the plan for one function whose loops are already in simplified
/// form (preheader, dedicated exits).
class AccessAnalysis {
public:
  AccessAnalysis(llvm::Function &F, llvm::LoopInfo &LI,
                 llvm::PostDominatorTree &PDT);

  FunctionPlan run();

  /// The functions of the module the pass instruments: a call of any other
  /// function that hands a pointer into the program's memory becomes an
  /// Extern CALL site.  Unset: every definition counts as instrumented.
  void setTraced(const llvm::DenseSet<const llvm::Function *> *T) {
    Traced = T;
  }

  /// Whether a call hands the callee a pointer into the program's memory:
  /// not null, a function, constant data, nor the C and C++ standard
  /// streams (stdout, std::cout: the library's own state).
  static bool handsProgramPointer(const llvm::CallBase &CB);

  /// Whether an access of \p Ptr needs to be traced: not a local whose
  /// address never escapes, not a load from a constant global, address
  /// space 0 only.
  bool isInterestingPointer(const llvm::Value *Ptr, bool IsWrite);

  /// Whether a local is traced: its address is captured or handed to a
  /// function (not an intrinsic).
  static bool isEscapingAlloca(const llvm::AllocaInst *AI);

  /// Calls \p Fn(A, B) for every block B directly control dependent on the
  /// branch (br, switch, indirectbr with two or more distinct successors)
  /// ending block A: the blocks on the post-dominator-tree path from a
  /// successor of A up to, excluding, ipdom(A).
  static void forEachControlDependence(
      llvm::Function &F, llvm::PostDominatorTree &PDT,
      llvm::function_ref<void(const llvm::BasicBlock *, const llvm::BasicBlock *)>
          Fn);

  /// The same on the paths that return: a branch's side that can only
  /// leave the function abnormally (exit(), abort(), a throw out of it)
  /// decides nothing for the code that returns (its own blocks still
  /// depend on the branch).  Falls back to forEachControlDependence in a
  /// function that never returns.
  static void forEachReturningControlDependence(
      llvm::Function &F, llvm::PostDominatorTree &PDT,
      llvm::function_ref<void(const llvm::BasicBlock *, const llvm::BasicBlock *)>
          Fn);

  /// Directory + '/' + file name (when relative) of a debug location.
  static std::string fileOf(const llvm::DILocation *DL);

  /// True for direct calls of MPI_* / PMPI_* functions.
  static bool isMPICall(const llvm::Instruction &I);

  /// True for direct calls of a function that reads a clock
  /// (tracelib/mpi-local.h, cht_is_clock): recorded like an MPI call.
  static bool isClockCall(const llvm::Instruction &I);

private:
  void computeLoops(FunctionPlan &Plan);
  /// Fills Conditional: blocks control dependent on a source-level decision,
  /// directly or through loop control (a loop's exiting branches and the
  /// guard in front of a rotated loop, which decide nothing themselves).
  void computeConditionalBlocks();
  bool endsGroup(const llvm::Instruction &I) const;
  bool describeAccess(llvm::Instruction &I, Access &A);
  void finishGroup(FunctionPlan &Plan, llvm::SmallVectorImpl<Access> &Group);
  void addCallSite(FunctionPlan &Plan, llvm::Instruction &I, uint8_t Kind);
  void addQueryOutputs(FunctionPlan &Plan, llvm::CallInst &CI, llvm::StringRef Name);
  void setLocation(Site &S, const llvm::DILocation *DL,
                   const llvm::BasicBlock *BB);

  llvm::Function &F;
  llvm::LoopInfo &LI;
  llvm::PostDominatorTree &PDT;
  const llvm::DataLayout &DL;
  std::string DefaultFile;
  llvm::DenseMap<const llvm::Value *, bool> EscapingAlloca;
  llvm::DenseSet<const llvm::BasicBlock *> Conditional;
  llvm::DenseMap<const llvm::Loop *, int> LoopIndex;
  const llvm::DenseSet<const llvm::Function *> *Traced = nullptr;
};

} // namespace commhint

#endif // COMMHINT_CLANG_PASS_ACCESSANALYSIS_H
