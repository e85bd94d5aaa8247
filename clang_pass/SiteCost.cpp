//===- SiteCost.cpp - static cost of each statement -----------------------===//
//
// Each instruction of a block is charged to one computation site of the
// same block, so that the weights follow what the source line does:
//  - a site's own traced accesses are its own;
//  - any other instruction goes to a site of the block with the same
//    debug line (the nearest one at or after it, else the last before
//    it): the arithmetic, untraced loads and calls of a statement;
//  - failing that, to the next site of the block (the statement whose
//    event is recorded right after the instruction ran, so it is timed
//    with it), else to the last site before it.
// Blocks without a computation site charge nobody: their time still
// belongs to the gap, spread over its events by their weights (a loop
// that computes only in registers is the known blind spot; the doc says
// so).  Read-only on the IR.
//
//===----------------------------------------------------------------------===//

#include "SiteCost.h"
#include "SystemCode.h"

#include "trace-format.h"

#include "llvm/ADT/SmallPtrSet.h"
#include "llvm/ADT/StringSwitch.h"
#include "llvm/IR/DebugInfoMetadata.h"
#include "llvm/IR/Function.h"
#include "llvm/IR/InstrTypes.h"
#include "llvm/IR/Instructions.h"
#include "llvm/IR/IntrinsicInst.h"

#include <algorithm>

using namespace llvm;

namespace commhint {

// The cost of one instruction, CHT_COST_* units.  Free: what the backend
// folds into its users or never emits (phis, address arithmetic, integer
// width changes, bit casts, debug and lifetime intrinsics, branches).
static uint32_t instCost(const Instruction &I) {
  if (isa<PHINode>(I) || isa<GetElementPtrInst>(I) || isa<AllocaInst>(I) ||
      I.isTerminator())
    return 0;
  if (isa<LoadInst>(I) || isa<StoreInst>(I) || isa<AtomicRMWInst>(I) ||
      isa<AtomicCmpXchgInst>(I))
    return CHT_COST_LOAD;
  if (const auto *CI = dyn_cast<CastInst>(&I)) {
    switch (CI->getOpcode()) {
    case Instruction::FPToSI:
    case Instruction::FPToUI:
    case Instruction::SIToFP:
    case Instruction::UIToFP:
    case Instruction::FPTrunc:
    case Instruction::FPExt:
      return CHT_COST_OP;
    default:
      return 0;
    }
  }
  if (const auto *BO = dyn_cast<BinaryOperator>(&I)) {
    switch (BO->getOpcode()) {
    case Instruction::UDiv:
    case Instruction::SDiv:
    case Instruction::URem:
    case Instruction::SRem:
    case Instruction::FDiv:
    case Instruction::FRem:
      return CHT_COST_DIV;
    default:
      return CHT_COST_OP;
    }
  }
  if (const auto *II = dyn_cast<IntrinsicInst>(&I)) {
    if (II->isAssumeLikeIntrinsic() || II->isLifetimeStartOrEnd() ||
        isa<DbgInfoIntrinsic>(II))
      return 0;
    switch (II->getIntrinsicID()) {
    case Intrinsic::sqrt:
      return CHT_COST_DIV;
    case Intrinsic::fmuladd:
    case Intrinsic::fma:
      return 2 * CHT_COST_OP;
    case Intrinsic::memcpy:
    case Intrinsic::memmove:
    case Intrinsic::memset:
      return CHT_COST_CALL; // the bytes are counted per event (dg_event.weight)
    default:
      // exp, log, pow, sin... as intrinsics become library calls
      return II->getType()->isFloatingPointTy() &&
                     II->getIntrinsicID() != Intrinsic::fabs &&
                     II->getIntrinsicID() != Intrinsic::copysign &&
                     II->getIntrinsicID() != Intrinsic::minnum &&
                     II->getIntrinsicID() != Intrinsic::maxnum &&
                     II->getIntrinsicID() != Intrinsic::floor &&
                     II->getIntrinsicID() != Intrinsic::ceil &&
                     II->getIntrinsicID() != Intrinsic::trunc &&
                     II->getIntrinsicID() != Intrinsic::rint
                 ? CHT_COST_CALL
                 : CHT_COST_OP;
    }
  }
  if (const auto *CB = dyn_cast<CallBase>(&I)) {
    // A function defined here is instrumented: its statements are events
    // of their own, and the call itself is cheap.  Anything else (libm,
    // libc, another object) runs unseen: a fixed, larger cost.
    const Function *Callee =
        dyn_cast<Function>(CB->getCalledOperand()->stripPointerCasts());
    if (Callee && !Callee->isDeclaration())
      return 2 * CHT_COST_OP;
    // libm functions that are one instruction or a few (the call stays
    // when errno may be set: `sqrt` without -fno-math-errno)
    if (Callee) {
      auto Cheap = [](StringRef N) {
        return StringSwitch<bool>(N)
            .Cases("fabs", "floor", "ceil", "trunc", "round", "rint", true)
            .Cases("fmin", "fmax", "copysign", "nearbyint", true)
            .Default(false);
      };
      StringRef N = Callee->getName();
      // the float and long double forms: sqrtf, floorl...
      StringRef D = N.endswith("f") || N.endswith("l") ? N.drop_back() : N;
      if (N == "sqrt" || D == "sqrt")
        return CHT_COST_DIV;
      if (Cheap(N) || Cheap(D))
        return CHT_COST_OP;
    }
    return CHT_COST_CALL;
  }
  return CHT_COST_OP; // compares, selects, fneg, vector element moves...
}

void computeSiteCosts(Function &F, FunctionPlan &Plan) {
  // The computation sites of each block, in block order: (position of the
  // event in the block, site index).
  struct At {
    unsigned Pos;
    size_t Site;
    unsigned Line;
  };
  DenseMap<const BasicBlock *, SmallVector<At, 4>> ByBlock;
  DenseMap<const Instruction *, size_t> Own;
  SmallPtrSet<const Instruction *, 8> Calls; // memcpy, memset, MPI: not a statement's
  for (size_t S = 0; S < Plan.Sites.size(); ++S) {
    Site &St = Plan.Sites[S];
    St.Cost = 0;
    if (St.Kind != CHT_SITE_COMP && St.Anchor)
      Calls.insert(St.Anchor);
    if (St.Kind != CHT_SITE_COMP || !St.Anchor)
      continue;
    for (const Access &A : St.Accesses)
      Own[A.Inst] = S;
    ByBlock[St.Anchor->getParent()].push_back({0, S, St.Line});
  }
  for (auto &KV : ByBlock) {
    const BasicBlock *BB = KV.first;
    SmallVector<At, 4> &Sites = KV.second;
    DenseMap<const Instruction *, unsigned> PosOf;
    unsigned P = 0;
    for (const Instruction &I : *BB)
      PosOf[&I] = P++;
    for (At &A : Sites)
      A.Pos = PosOf.lookup(Plan.Sites[A.Site].Anchor);
    llvm::sort(Sites, [](const At &X, const At &Y) { return X.Pos < Y.Pos; });

    P = 0;
    for (const Instruction &I : *BB) {
      unsigned Pos = P++;
      uint32_t C = instCost(I);
      if (!C || Calls.count(&I) || AccessAnalysis::isMPICall(I) ||
          AccessAnalysis::isClockCall(I))
        continue;
      size_t To = SIZE_MAX;
      auto It = Own.find(&I);
      if (It != Own.end()) {
        To = It->second;
      } else {
        const DILocation *Loc = programLocationIn(F, I.getDebugLoc().get());
        unsigned Line = Loc ? Loc->getLine() : 0;
        const At *After = nullptr, *Before = nullptr, *LAfter = nullptr,
                 *LBefore = nullptr;
        for (const At &A : Sites) {
          bool SameLine = Line && A.Line == Line;
          if (A.Pos >= Pos) {
            if (!After)
              After = &A;
            if (SameLine && !LAfter)
              LAfter = &A;
          } else {
            Before = &A;
            if (SameLine)
              LBefore = &A;
          }
        }
        const At *Pick = LAfter  ? LAfter
                         : LBefore ? LBefore
                         : After   ? After
                                   : Before;
        To = Pick->Site;
      }
      Site &St = Plan.Sites[To];
      St.Cost = std::min<uint32_t>(St.Cost + C, CHT_COST_MAX);
    }
  }
  // An event always costs something: it made at least one access.
  for (Site &St : Plan.Sites)
    if (St.Kind == CHT_SITE_COMP && St.Cost < CHT_COST_LOAD)
      St.Cost = CHT_COST_LOAD;
    else if (St.Kind != CHT_SITE_COMP && !St.Cost)
      St.Cost = St.Kind == CHT_SITE_CALL ? 0 : CHT_COST_CALL;
}

} // namespace commhint
