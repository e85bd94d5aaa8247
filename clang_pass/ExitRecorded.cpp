//===- ExitRecorded.cpp - loops recorded at their exits -------------------===//
//
// See ExitRecorded.h.  A loop qualifies when the records its iterations
// make are a function of the iteration number alone: one block (every
// iteration runs every site, in block order, after the iter record), no
// call but intrinsics without side effects (nothing else records, nothing
// leaves the loop but its exit edges), every address affine in the loop
// with a constant step but at most COMMHINT_RT_LOOP_IRR computed in the
// loop (irregular: each iteration stores them), at most
// CHT_REPEAT_PERIOD_MAX - 1 sites of at most COMMHINT_RT_FAST_ADDRS
// addresses (a period the runtime's runs hold), and not known to stop
// after a few iterations.
//
//===----------------------------------------------------------------------===//

#include "ExitRecorded.h"

#include "commhint-rt.h"
#include "trace-format.h"

#include "llvm/Analysis/LoopInfo.h"
#include "llvm/Analysis/ScalarEvolutionExpressions.h"
#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/IntrinsicInst.h"
#include "llvm/IR/Module.h"
#include "llvm/Transforms/Utils/ScalarEvolutionExpander.h"

#include <algorithm>

using namespace llvm;

namespace commhint {

namespace {

// At most this many iterations, known at compile time: recorded per
// iteration (the call at the exit and the runtime's first two iterations
// cost about what the inline path costs for that many).
constexpr unsigned ShortLoopTrips = 16;

// Calls that leave the records of an iteration as they are.
bool harmlessCall(const CallBase &CB) {
  const auto *II = dyn_cast<IntrinsicInst>(&CB);
  if (!II)
    return false;
  if (isa<DbgInfoIntrinsic>(II))
    return true;
  switch (II->getIntrinsicID()) {
  case Intrinsic::lifetime_start:
  case Intrinsic::lifetime_end:
  case Intrinsic::assume:
  case Intrinsic::experimental_noalias_scope_decl:
    return true;
  default:
    return !II->mayHaveSideEffects();
  }
}

// The start and step of the address Ptr in L, if it is affine there.
bool affineAddress(ScalarEvolution &SE, const Loop *L, Value *Ptr,
                   const SCEV *&Start, int64_t &Step) {
  const SCEV *S = SE.getSCEV(Ptr);
  if (SE.isLoopInvariant(S, L)) {
    Start = S;
    Step = 0;
    return true;
  }
  const auto *AR = dyn_cast<SCEVAddRecExpr>(S);
  if (!AR || AR->getLoop() != L || !AR->isAffine())
    return false;
  const auto *C = dyn_cast<SCEVConstant>(AR->getStepRecurrence(SE));
  if (!C || C->getAPInt().getMinSignedBits() > 64)
    return false;
  Start = AR->getStart();
  Step = C->getAPInt().getSExtValue();
  return SE.isLoopInvariant(Start, L);
}

} // namespace

std::vector<ExitRecordedLoop> findExitRecordedLoops(Function &F,
                                                    const FunctionPlan &Plan,
                                                    ScalarEvolution &SE) {
  std::vector<ExitRecordedLoop> Out;
  const DataLayout &DL = F.getParent()->getDataLayout();
  for (size_t Idx = 0; Idx < Plan.Loops.size(); ++Idx) {
    const LoopDesc &D = Plan.Loops[Idx];
    Loop *L = D.L;
    if (!L || !D.Preheader || !L->isInnermost() || L->getNumBlocks() != 1 ||
        D.Header != L->getHeader() || L->getLoopPreheader() != D.Preheader)
      continue;
    BasicBlock *H = L->getHeader();
    if (L->getLoopLatch() != H || pred_size(H) != 2)
      continue;
    // A loop of a few iterations (CoMD's loops over x, y, z) costs less
    // recorded per iteration, inline, than by a call at its exit.
    unsigned MaxTrips = SE.getSmallConstantMaxTripCount(L);
    if (MaxTrips && MaxTrips <= ShortLoopTrips)
      continue;
    ExitRecordedLoop E;
    E.Loop = int(Idx);
    E.Header = H;
    SmallVector<BasicBlock *, 4> Exits;
    L->getUniqueExitBlocks(Exits);
    E.Exits.assign(Exits.begin(), Exits.end());
    bool Ok = !E.Exits.empty();
    for (BasicBlock *X : E.Exits)
      Ok &= X->getSinglePredecessor() == H && X->getFirstInsertionPt() != X->end();
    for (Instruction &I : *H)
      if (auto *CB = dyn_cast<CallBase>(&I))
        Ok &= harmlessCall(*CB);
    for (size_t S = 0; Ok && S < Plan.Sites.size(); ++S) {
      const Site &St = Plan.Sites[S];
      bool Here = St.Anchor && St.Anchor->getParent() == H;
      if (St.Loop != int(Idx) && !Here)
        continue;
      Ok = Here && St.Kind == CHT_SITE_COMP &&
           St.Accesses.size() <= COMMHINT_RT_FAST_ADDRS;
      if (Ok)
        E.Sites.push_back(int(S));
    }
    if (!Ok || E.Sites.size() + 1 > CHT_REPEAT_PERIOD_MAX)
      continue;
    std::sort(E.Sites.begin(), E.Sites.end(), [&](int A, int B) {
      return Plan.Sites[A].Anchor->comesBefore(Plan.Sites[B].Anchor);
    });
    SmallVector<const SCEV *, 16> Starts;
    SCEVExpander Exp(SE, DL, "commhint.start");
    Instruction *At = D.Preheader->getTerminator();
    for (int S : E.Sites) {
      E.Addrs.push_back(uint32_t(Plan.Sites[S].Accesses.size()));
      for (const Access &A : Plan.Sites[S].Accesses) {
        const SCEV *Start = nullptr;
        int64_t Step = 0;
        if (!affineAddress(SE, L, A.Ptr, Start, Step) ||
            !Exp.isSafeToExpandAt(Start, At)) {
          // computed in the loop: each iteration stores it (at the
          // header's end, where it is available)
          auto *I = dyn_cast<Instruction>(A.Ptr);
          Ok = Ok && I && I->getParent() == H && I->getType()->isPointerTy() &&
               E.Irregular.size() < COMMHINT_RT_LOOP_IRR;
          E.Irregular.push_back(A.Ptr);
          Start = nullptr;
          Step = COMMHINT_RT_IRREGULAR;
        }
        Starts.push_back(Start);
        E.Steps.push_back(Step);
      }
    }
    if (!Ok)
      continue;
    for (const SCEV *S : Starts)
      E.Starts.push_back(S ? Exp.expandCodeFor(S, S->getType(), At) : nullptr);
    Exp.clear();
    // The counter: iterations done when the header's branch runs.
    Type *I64 = Type::getInt64Ty(F.getContext());
    IRBuilder<> B(&H->front());
    PHINode *Count = B.CreatePHI(I64, 2, "commhint.iter");
    B.SetInsertPoint(H->getTerminator());
    Value *Done = B.CreateAdd(Count, ConstantInt::get(I64, 1), "commhint.trips",
                              /*HasNUW=*/true);
    Count->addIncoming(ConstantInt::get(I64, 0), D.Preheader);
    Count->addIncoming(Done, H);
    E.Iter = Count;
    E.Trips = Done;
    Out.push_back(std::move(E));
  }
  return Out;
}

} // namespace commhint
