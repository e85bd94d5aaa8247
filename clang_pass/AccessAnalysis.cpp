//===- AccessAnalysis.cpp - what the commhint pass records ----------------===//
//
// Decides which accesses matter and how they group into sites; see
// AccessAnalysis.h.  Read-only on the IR.
//
//===----------------------------------------------------------------------===//

#include "AccessAnalysis.h"

#include "trace-format.h"

#include "llvm/ADT/SmallPtrSet.h"
#include "llvm/Analysis/CaptureTracking.h"
#include "llvm/Analysis/LoopInfo.h"
#include "llvm/Analysis/PostDominators.h"
#include "llvm/Analysis/ValueTracking.h"
#include "llvm/IR/DebugInfoMetadata.h"
#include "llvm/IR/Function.h"
#include "llvm/IR/InstrTypes.h"
#include "llvm/IR/Instructions.h"
#include "llvm/IR/IntrinsicInst.h"
#include "llvm/IR/Module.h"
#include "llvm/Support/Path.h"

#include <tuple>

using namespace llvm;

namespace commhint {

AccessAnalysis::AccessAnalysis(Function &F, LoopInfo &LI,
                               PostDominatorTree &PDT)
    : F(F), LI(LI), PDT(PDT), DL(F.getParent()->getDataLayout()) {
  if (const DISubprogram *SP = F.getSubprogram()) {
    StringRef Name = SP->getFilename();
    if (!Name.empty() && !sys::path::is_absolute(Name) &&
        !SP->getDirectory().empty())
      DefaultFile = (SP->getDirectory() + "/" + Name).str();
    else
      DefaultFile = Name.str();
  }
  if (DefaultFile.empty())
    DefaultFile = F.getParent()->getSourceFileName();
}

std::string AccessAnalysis::fileOf(const DILocation *Loc) {
  if (!Loc)
    return "";
  StringRef Name = Loc->getFilename();
  StringRef Dir = Loc->getDirectory();
  if (Name.empty() || Dir.empty() || sys::path::is_absolute(Name))
    return Name.str();
  return (Dir + "/" + Name).str();
}

static const Function *directCallee(const CallBase &CB) {
  return dyn_cast<Function>(CB.getCalledOperand()->stripPointerCasts());
}

bool AccessAnalysis::isMPICall(const Instruction &I) {
  const auto *CB = dyn_cast<CallBase>(&I);
  if (!CB)
    return false;
  const Function *Callee = directCallee(*CB);
  if (!Callee)
    return false;
  StringRef Name = Callee->getName();
  return Name.startswith("MPI_") || Name.startswith("PMPI_");
}

bool AccessAnalysis::isInterestingPointer(const Value *Ptr, bool IsWrite) {
  auto *PtrTy = dyn_cast<PointerType>(Ptr->getType()->getScalarType());
  if (!PtrTy || PtrTy->getAddressSpace() != 0)
    return false;
  const Value *Obj = getUnderlyingObject(Ptr);
  if (const auto *GV = dyn_cast<GlobalVariable>(Obj)) {
    // Constant data cannot change; compiler-made globals are not the
    // program's data.
    if (GV->isConstant() && !IsWrite)
      return false;
    StringRef Name = GV->getName();
    if (Name.startswith("llvm.") || Name.startswith("__llvm_") ||
        Name.startswith("__commhint_"))
      return false;
    return true;
  }
  if (isa<AllocaInst>(Obj)) {
    // Like ThreadSanitizer's isEscapingLocal: a local nobody else can see
    // (loop counters, temporaries) cannot take part in communication.
    auto It = EscapingAlloca.find(Obj);
    if (It == EscapingAlloca.end())
      It = EscapingAlloca
               .insert({Obj, PointerMayBeCaptured(Obj, /*ReturnCaptures=*/true,
                                                  /*StoreCaptures=*/true)})
               .first;
    return It->second;
  }
  return true;
}

bool AccessAnalysis::describeAccess(Instruction &I, Access &A) {
  Type *Ty = nullptr;
  bool IsWrite = false;
  if (auto *LI = dyn_cast<LoadInst>(&I)) {
    A.Ptr = LI->getPointerOperand();
    Ty = LI->getType();
    A.Flags = CHT_ACCESS_READ;
  } else if (auto *SI = dyn_cast<StoreInst>(&I)) {
    A.Ptr = SI->getPointerOperand();
    Ty = SI->getValueOperand()->getType();
    A.Flags = CHT_ACCESS_WRITE;
    IsWrite = true;
  } else if (auto *RMW = dyn_cast<AtomicRMWInst>(&I)) {
    A.Ptr = RMW->getPointerOperand();
    Ty = RMW->getValOperand()->getType();
    A.Flags = CHT_ACCESS_READ | CHT_ACCESS_WRITE;
    IsWrite = true;
  } else if (auto *CX = dyn_cast<AtomicCmpXchgInst>(&I)) {
    A.Ptr = CX->getPointerOperand();
    Ty = CX->getNewValOperand()->getType();
    A.Flags = CHT_ACCESS_READ | CHT_ACCESS_WRITE;
    IsWrite = true;
  } else {
    return false;
  }
  TypeSize TS = DL.getTypeStoreSize(Ty);
  if (TS.isScalable() || TS.getFixedValue() == 0 ||
      TS.getFixedValue() > UINT32_MAX)
    return false;
  A.Size = static_cast<uint32_t>(TS.getFixedValue());
  A.IsVector = Ty->isVectorTy();
  A.Inst = &I;
  return isInterestingPointer(A.Ptr, IsWrite);
}

// A call ends a statement's group unless it is a debug/lifetime-like
// intrinsic or an intrinsic that touches no memory (llvm.fmuladd in the
// middle of `a[i] = b[i] * c + d[i]`, llvm.smax, ...).
bool AccessAnalysis::endsGroup(const Instruction &I) const {
  const auto *CB = dyn_cast<CallBase>(&I);
  if (!CB)
    return false;
  if (const auto *II = dyn_cast<IntrinsicInst>(CB)) {
    if (II->isAssumeLikeIntrinsic())
      return false;
    if (!isa<MemIntrinsic>(II) && !II->mayReadOrWriteMemory())
      return false;
  }
  if (const Function *Callee = directCallee(*CB))
    if (Callee->getName().startswith("__commhint_"))
      return false;
  return true;
}

void AccessAnalysis::setLocation(Site &S, const DILocation *Loc,
                                 const BasicBlock *BB) {
  S.Func = F.getName().str();
  if (Loc) {
    S.File = fileOf(Loc);
    S.Line = Loc->getLine();
    S.Col = static_cast<uint16_t>(std::min<unsigned>(Loc->getColumn(), 0xffff));
    if (Loc->getInlinedAt())
      S.Flags |= CHT_SITEF_INLINED;
  }
  if (S.File.empty())
    S.File = DefaultFile;
  if (Conditional.count(BB))
    S.Flags |= CHT_SITEF_CONDITIONAL;
  if (const Loop *L = LI.getLoopFor(BB))
    S.Loop = LoopIndex.lookup(L);
}

static const Value *stripCasts(const Value *V) {
  while (const auto *C = dyn_cast<CastInst>(V))
    V = C->getOperand(0);
  return V;
}

// Same value computed twice: at -O0 `a[i] += x` loads `i` and builds the
// address of a[i] once for the load and once for the store.  Two
// instructions of the same operation on equal operands are equal; two loads
// also need nothing that may write memory between them in their block.
static bool sameValue(const Value *A, const Value *B, unsigned Depth) {
  if (A == B)
    return true;
  const auto *IA = dyn_cast<Instruction>(A);
  const auto *IB = dyn_cast<Instruction>(B);
  if (!Depth || !IA || !IB || !IA->isSameOperationAs(IB) ||
      IA->getNumOperands() != IB->getNumOperands() || isa<PHINode>(IA) ||
      isa<CallBase>(IA) || IA->mayHaveSideEffects())
    return false;
  if (const auto *LA = dyn_cast<LoadInst>(IA)) {
    const auto *LB = cast<LoadInst>(IB);
    if (!LA->isSimple() || !LB->isSimple() ||
        LA->getParent() != LB->getParent())
      return false;
    const Instruction *First = LA->comesBefore(LB) ? LA : LB;
    const Instruction *Last = First == LA ? LB : LA;
    for (const Instruction *I = First->getNextNode(); I != Last;
         I = I->getNextNode())
      if (I->mayWriteToMemory())
        return false;
  }
  for (unsigned K = 0; K < IA->getNumOperands(); ++K)
    if (!sameValue(IA->getOperand(K), IB->getOperand(K), Depth - 1))
      return false;
  return true;
}

static bool samePointer(const Value *A, const Value *B) {
  return sameValue(A->stripPointerCasts(), B->stripPointerCasts(), 6);
}

static bool isLoadOf(const Value *V, const Value *Ptr) {
  const auto *Ld = dyn_cast<LoadInst>(stripCasts(V));
  return Ld && samePointer(Ld->getPointerOperand(), Ptr);
}

static uint8_t binaryOp(unsigned Opcode) {
  switch (Opcode) {
  case Instruction::Add:
    return CHT_SOP_ADD;
  case Instruction::Sub:
    return CHT_SOP_SUB;
  case Instruction::Mul:
    return CHT_SOP_MUL;
  case Instruction::SDiv:
  case Instruction::UDiv:
    return CHT_SOP_DIV;
  case Instruction::FAdd:
    return CHT_SOP_FADD;
  case Instruction::FSub:
    return CHT_SOP_FSUB;
  case Instruction::FMul:
    return CHT_SOP_FMUL;
  case Instruction::FDiv:
    return CHT_SOP_FDIV;
  case Instruction::And:
    return CHT_SOP_AND;
  case Instruction::Or:
    return CHT_SOP_OR;
  case Instruction::Xor:
    return CHT_SOP_XOR;
  default:
    return CHT_SOP_OTHER;
  }
}

// op and accumulate flag of a store of \p V to \p Ptr.  A copy is a store
// of a value loaded by the same statement from traced memory (at -O0 every
// variable is loaded; an untraced local is a value, as it is at -O2).
static void storedOp(const Value *V, const Value *Ptr, ArrayRef<Access> Group,
                     Site &S) {
  V = stripCasts(V);
  if (isa<LoadInst>(V)) {
    if (llvm::any_of(Group, [&](const Access &A) { return A.Inst == V; }))
      S.Op = CHT_SOP_COPY;
    return;
  }
  SmallVector<const Value *, 2> Operands;
  if (const auto *BO = dyn_cast<BinaryOperator>(V)) {
    S.Op = binaryOp(BO->getOpcode());
    Operands.assign({BO->getOperand(0), BO->getOperand(1)});
  } else if (const auto *II = dyn_cast<IntrinsicInst>(V)) {
    switch (II->getIntrinsicID()) {
    case Intrinsic::smin:
    case Intrinsic::umin:
      S.Op = CHT_SOP_MIN;
      break;
    case Intrinsic::smax:
    case Intrinsic::umax:
      S.Op = CHT_SOP_MAX;
      break;
    case Intrinsic::minnum:
    case Intrinsic::minimum:
      S.Op = CHT_SOP_FMIN;
      break;
    case Intrinsic::maxnum:
    case Intrinsic::maximum:
      S.Op = CHT_SOP_FMAX;
      break;
    case Intrinsic::fmuladd:
    case Intrinsic::fma:
      // s = a * b + s, contracted: an addition whose addend is operand 2.
      S.Op = CHT_SOP_FADD;
      if (isLoadOf(II->getArgOperand(2), Ptr))
        S.Flags |= CHT_SITEF_ACCUMULATE;
      return;
    default:
      return;
    }
    Operands.assign({II->getArgOperand(0), II->getArgOperand(1)});
  } else {
    return;
  }
  for (const Value *Op : Operands)
    if (isLoadOf(Op, Ptr))
      S.Flags |= CHT_SITEF_ACCUMULATE;
}

static void rmwOp(const AtomicRMWInst &RMW, Site &S) {
  S.Flags |= CHT_SITEF_ACCUMULATE;
  switch (RMW.getOperation()) {
  case AtomicRMWInst::Add:
    S.Op = CHT_SOP_ADD;
    break;
  case AtomicRMWInst::Sub:
    S.Op = CHT_SOP_SUB;
    break;
  case AtomicRMWInst::And:
    S.Op = CHT_SOP_AND;
    break;
  case AtomicRMWInst::Or:
    S.Op = CHT_SOP_OR;
    break;
  case AtomicRMWInst::Xor:
    S.Op = CHT_SOP_XOR;
    break;
  case AtomicRMWInst::Max:
  case AtomicRMWInst::UMax:
    S.Op = CHT_SOP_MAX;
    break;
  case AtomicRMWInst::Min:
  case AtomicRMWInst::UMin:
    S.Op = CHT_SOP_MIN;
    break;
  case AtomicRMWInst::FAdd:
    S.Op = CHT_SOP_FADD;
    break;
  case AtomicRMWInst::FSub:
    S.Op = CHT_SOP_FSUB;
    break;
  case AtomicRMWInst::FMax:
    S.Op = CHT_SOP_FMAX;
    break;
  case AtomicRMWInst::FMin:
    S.Op = CHT_SOP_FMIN;
    break;
  default: // xchg, nand, inc/dec wrap
    S.Flags &= ~CHT_SITEF_ACCUMULATE;
    S.Op = RMW.getOperation() == AtomicRMWInst::Xchg ? CHT_SOP_NONE
                                                     : CHT_SOP_OTHER;
    break;
  }
}

void AccessAnalysis::finishGroup(FunctionPlan &Plan,
                                 SmallVectorImpl<Access> &Group) {
  if (Group.empty())
    return;
  Site S;
  S.Kind = CHT_SITE_COMP;
  // The statement is named after its first store (the assignment), or its
  // first access when it only reads.
  const Access *Rep = &Group.front();
  for (const Access &A : Group)
    if (A.Flags & CHT_ACCESS_WRITE) {
      Rep = &A;
      break;
    }
  setLocation(S, Rep->Inst->getDebugLoc().get(), Rep->Inst->getParent());
  for (const Access &A : Group) {
    if (A.Inst->isAtomic())
      S.Flags |= CHT_SITEF_ATOMIC;
    if (A.IsVector)
      S.Flags |= CHT_SITEF_VECTOR;
  }
  for (auto It = Group.rbegin(); It != Group.rend(); ++It) {
    if (auto *SI = dyn_cast<StoreInst>(It->Inst)) {
      storedOp(SI->getValueOperand(), SI->getPointerOperand(), Group, S);
      break;
    }
    if (auto *RMW = dyn_cast<AtomicRMWInst>(It->Inst)) {
      rmwOp(*RMW, S);
      break;
    }
    if (isa<AtomicCmpXchgInst>(It->Inst))
      break;
  }
  S.Accesses.assign(Group.begin(), Group.end());
  S.Anchor = Group.back().Inst;
  Plan.MaxAddrs = std::max<unsigned>(Plan.MaxAddrs, Group.size());
  Plan.Sites.push_back(std::move(S));
  Group.clear();
}

void AccessAnalysis::addCallSite(FunctionPlan &Plan, Instruction &I,
                                 uint8_t Kind) {
  Site S;
  S.Kind = Kind;
  setLocation(S, I.getDebugLoc().get(), I.getParent());
  S.Anchor = &I;
  Plan.Sites.push_back(std::move(S));
}

void AccessAnalysis::computeLoops(FunctionPlan &Plan) {
  for (Loop *L : LI.getLoopsInPreorder()) {
    LoopDesc D;
    D.L = L;
    D.Func = F.getName().str();
    DebugLoc Loc = L->getStartLoc();
    if (!Loc)
      for (const Instruction &I : *L->getHeader())
        if ((Loc = I.getDebugLoc()))
          break;
    if (const DILocation *DIL = Loc.get()) {
      D.File = fileOf(DIL);
      D.Line = DIL->getLine();
      D.Col =
          static_cast<uint16_t>(std::min<unsigned>(DIL->getColumn(), 0xffff));
    }
    if (D.File.empty())
      D.File = DefaultFile;
    D.Depth = static_cast<uint16_t>(L->getLoopDepth());
    D.Parent = L->getParentLoop() ? LoopIndex.lookup(L->getParentLoop()) : -1;
    D.Preheader = L->getLoopPreheader();
    D.Header = L->getHeader();
    LoopIndex[L] = Plan.Loops.size();
    Plan.Loops.push_back(std::move(D));
  }

  // One exit call per exit block, naming the outermost loop its incoming
  // edges leave.  With dedicated exits all predecessors are inside the loop,
  // so that loop does not depend on which edge is taken.
  SmallPtrSet<BasicBlock *, 16> Seen;
  for (const LoopDesc &D : Plan.Loops) {
    if (!D.Preheader)
      continue;
    SmallVector<BasicBlock *, 4> ExitBlocks;
    D.L->getUniqueExitBlocks(ExitBlocks);
    for (BasicBlock *E : ExitBlocks) {
      if (!Seen.insert(E).second)
        continue;
      if (!llvm::all_of(predecessors(E),
                        [&](BasicBlock *P) { return D.L->contains(P); }))
        continue; // not a dedicated exit (simplification failed)
      Loop *Outer = D.L;
      Loop *Named = D.L;
      while (Outer->getParentLoop() && !Outer->getParentLoop()->contains(E)) {
        Outer = Outer->getParentLoop();
        if (Plan.Loops[LoopIndex.lookup(Outer)].Preheader)
          Named = Outer; // only instrumented loops are on the stack
      }
      Plan.Exits.push_back({E, LoopIndex.lookup(Named)});
    }
  }
}

// The branch in front of a rotated loop (`if (n > 0)` that loop rotation
// copies from the loop's exit test): the conditional branch of the block
// before the preheader (through a straight-line chain) whose other successor
// post-dominates every exit of the loop, so it only decides whether the loop
// runs.  Such a branch is the loop's own test; an explicit `if` written
// around a loop has the same shape at -O2 and is treated alike.
static const BasicBlock *loopGuard(const Loop &L,
                                   const PostDominatorTree &PDT) {
  const BasicBlock *P = L.getLoopPreheader();
  if (!P || !L.isRotatedForm())
    return nullptr;
  const BasicBlock *B = P;
  while (const BasicBlock *Pred = B->getUniquePredecessor()) {
    if (Pred->getSingleSuccessor() != B || Pred->isEntryBlock())
      break;
    B = Pred;
  }
  const BasicBlock *G = B->getUniquePredecessor();
  if (!G)
    return nullptr;
  const auto *BI = dyn_cast<BranchInst>(G->getTerminator());
  if (!BI || !BI->isConditional())
    return nullptr;
  const BasicBlock *Other =
      BI->getSuccessor(0) == B ? BI->getSuccessor(1) : BI->getSuccessor(0);
  if (Other == B)
    return nullptr;
  SmallVector<BasicBlock *, 4> Exits;
  L.getUniqueExitBlocks(Exits);
  for (const BasicBlock *E : Exits)
    if (!PDT.dominates(Other, E))
      return nullptr;
  return G;
}

// Blocks control-dependent on a conditional branch other than a loop's own
// exit test (or its guard, above): for a branch block A and each successor
// S, the blocks on the post-dominator-tree path from S up to, excluding,
// ipdom(A).
void AccessAnalysis::computeConditionalBlocks() {
  SmallPtrSet<const BasicBlock *, 8> Guards;
  for (const Loop *L : LI.getLoopsInPreorder())
    if (const BasicBlock *G = loopGuard(*L, PDT))
      Guards.insert(G);
  for (BasicBlock &A : F) {
    const Instruction *T = A.getTerminator();
    if (!T ||
        !(isa<BranchInst>(T) || isa<SwitchInst>(T) || isa<IndirectBrInst>(T)))
      continue;
    SmallPtrSet<BasicBlock *, 4> Succs(succ_begin(&A), succ_end(&A));
    if (Succs.size() < 2)
      continue;
    if (const Loop *L = LI.getLoopFor(&A))
      if (L->isLoopExiting(&A))
        continue;
    if (Guards.count(&A))
      continue;
    DomTreeNode *AN = PDT.getNode(&A);
    if (!AN)
      continue;
    DomTreeNode *Stop = AN->getIDom();
    for (BasicBlock *S : Succs)
      for (DomTreeNode *N = PDT.getNode(S); N && N != Stop && N->getBlock();
           N = N->getIDom())
        Conditional.insert(N->getBlock());
  }
}

// One group per statement: consecutive traced accesses of one block with
// the same line, scope and inlinedAt; a call or a line change ends it.
FunctionPlan AccessAnalysis::run() {
  FunctionPlan Plan;
  computeLoops(Plan);
  computeConditionalBlocks();

  using Key = std::tuple<unsigned, const Metadata *, const Metadata *>;
  auto KeyOf = [](const Instruction &I) -> Key {
    const DILocation *Loc = I.getDebugLoc().get();
    if (!Loc)
      return Key(0, nullptr, nullptr);
    return Key(Loc->getLine(), Loc->getScope(), Loc->getInlinedAt());
  };

  SmallVector<Access, 8> Group;
  Key GroupKey;
  for (BasicBlock &BB : F) {
    for (Instruction &I : BB) {
      if (auto *CB = dyn_cast<CallBase>(&I)) {
        if (endsGroup(I))
          finishGroup(Plan, Group);
        const Function *Callee = directCallee(*CB);
        StringRef Name = Callee ? Callee->getName() : StringRef();
        bool IsCopy =
            isa<MemTransferInst>(CB) ||
            ((Name == "memcpy" || Name == "memmove") && CB->arg_size() == 3);
        bool IsSet =
            isa<MemSetInst>(CB) || (Name == "memset" && CB->arg_size() == 3);
        if (IsCopy || IsSet) {
          Value *Dst = CB->getArgOperand(0);
          Value *Src = IsCopy ? CB->getArgOperand(1) : nullptr;
          if (!Dst->getType()->isPointerTy() ||
              (Src && !Src->getType()->isPointerTy()) ||
              !CB->getArgOperand(2)->getType()->isIntegerTy())
            continue;
          if (!isInterestingPointer(Dst, true) &&
              !(Src && isInterestingPointer(Src, false)))
            continue;
          addCallSite(Plan, I, IsCopy ? CHT_SITE_MEMCPY : CHT_SITE_MEMSET);
          Site &S = Plan.Sites.back();
          S.Dst = Dst;
          S.Src = Src;
          S.Len = CB->getArgOperand(2);
        } else if (isMPICall(I)) {
          addCallSite(Plan, I, CHT_SITE_CALL);
        }
        continue;
      }
      Access A;
      if (!describeAccess(I, A))
        continue;
      Key K = KeyOf(I);
      if (!Group.empty() && K != GroupKey)
        finishGroup(Plan, Group);
      GroupKey = K;
      Group.push_back(A);
    }
    finishGroup(Plan, Group);
  }
  return Plan;
}

} // namespace commhint
