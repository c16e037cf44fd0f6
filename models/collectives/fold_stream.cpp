#include "models/collectives/fold_stream.h"

#include <algorithm>
#include <string>

#include "models/collectives/fold.h"
#include "sim/errors.h"

namespace t3sim::collectives {
namespace {

using common::FoldError;

// (sender GPU, its lane, chunk in the lane, fan-out position) in one word.
uint64_t pack_key(int gpu, uint32_t lane, uint32_t chunk, uint16_t fan) {
  if (lane >= (1u << 16) || chunk >= (1u << 24) || fan >= (1u << 8) || gpu >= (1 << 16)) {
    throw FoldError("schedule too large to fold while it is generated");
  }
  return (static_cast<uint64_t>(gpu) << 48) | (static_cast<uint64_t>(lane) << 32) |
         (static_cast<uint64_t>(chunk) << 8) | fan;
}

int key_gpu(uint64_t k) { return static_cast<int>(k >> 48); }
uint64_t with_gpu(uint64_t k, int gpu) {
  return (k & ((uint64_t{1} << 48) - 1)) | (static_cast<uint64_t>(gpu) << 48);
}

void claim(uint32_t& owner, uint32_t lane, const char* what) {
  if (owner != kNone && owner != lane) throw FoldError(std::string("two lanes ") + what);
  owner = lane;
}

}  // namespace

FoldStream::FoldStream(const common::GpuRotation& rot)
    : rot_(rot),
      lanes_per_gpu_(static_cast<size_t>(rot.size()), 0),
      rep_channel_(static_cast<size_t>(std::max(0, rot.reps()))),
      rep_(static_cast<size_t>(std::max(0, rot.reps()))) {}

const FoldStream::LaneRec& FoldStream::lane_of(uint32_t handle) const {
  const auto it = std::upper_bound(lanes_.begin(), lanes_.end(), handle,
                                   [](uint32_t h, const LaneRec& l) { return h < l.first; });
  if (it == lanes_.begin() || handle >= next_) throw FoldError("dependency on an unknown op");
  return *(it - 1);
}

uint32_t FoldStream::real(uint32_t h) const {
  const LaneRec& l = lane_of(h);
  if (l.gpu >= rot_.reps()) throw FoldError("dependency on a dropped op");
  return rep_[static_cast<size_t>(l.gpu)][l.local][h - l.first].real_last;
}

void FoldStream::close_lane() {
  if (rep_lane_ != nullptr && at_ != rep_lane_->size()) {
    throw FoldError("GPU " + std::to_string(gpu_) + " lane " + std::to_string(local_) + " has " +
                    std::to_string(at_) + " chunks, GPU " + std::to_string(rot_.rep(gpu_)) +
                    "'s has " + std::to_string(rep_lane_->size()));
  }
  for (const auto& [cg, c0] : lane_match_) matches_.emplace_back(cg, c0, gpu_);
  lane_match_.clear();
}

void FoldStream::open_lane(int gpu, uint32_t channel) {
  close_lane();
  if (gpu < 0 || gpu >= rot_.size()) {
    throw FoldError("lane on GPU " + std::to_string(gpu) + " outside the group");
  }
  gpu_ = gpu;
  local_ = lanes_per_gpu_[static_cast<size_t>(gpu)]++;
  at_ = 0;
  last_send_ = last_recv_ = paired_send_ = paired_recv_ = kNone;
  rep_lane_ = nullptr;
  const auto r = static_cast<size_t>(rot_.rep(gpu));
  const auto rep_name = [&] { return "GPU " + std::to_string(r) + "'s"; };
  if (gpu < rot_.reps()) {
    rep_[r].emplace_back();
    rep_channel_[r].push_back(channel);
  } else if (local_ >= rep_[r].size()) {
    throw FoldError("GPU " + std::to_string(gpu) + " lane " + std::to_string(local_) +
                    " comes before " + rep_name());
  } else if (rep_channel_[r][local_] != channel) {
    throw FoldError("GPU " + std::to_string(gpu) + " lane " + std::to_string(local_) +
                    " runs on another channel than " + rep_name());
  } else {
    rep_lane_ = &rep_[r][local_];  // valid while this lane is open: only open_lane adds lanes
  }
  lanes_.push_back(LaneRec{gpu, local_, next_});
}

void FoldStream::grow(size_t n) {
  n = std::max(n, key_.size() * 2);
  key_.resize(n, ~uint64_t{0});
  nsend_.resize(n, 0);
  nrecv_.resize(n, 0);
  send_lane_.resize(n, kNone);
  recv_lane_.resize(n, kNone);
}

void FoldStream::note_conn(uint32_t c, bool send, uint16_t fan) {
  uint32_t& last = send ? last_send_ : last_recv_;
  if (c == last) {  // the lane's previous chunk used it: counted, claimed and keyed already
    ++(send ? nsend_ : nrecv_)[c];
    return;
  }
  if (c >= key_.size()) grow(size_t{c} + 1);
  const auto lane = static_cast<uint32_t>(lanes_.size() - 1);
  if (send) {
    if (nsend_[c]++ == 0) key_[c] = pack_key(gpu_, local_, at_, fan);
    claim(send_lane_[c], lane, "send on one connection");
  } else {
    ++nrecv_[c];
    claim(recv_lane_[c], lane, "receive on one connection");
  }
  if (fan == 0) last = c;
}

void FoldStream::match(uint32_t cg, uint32_t c0) {
  for (const auto& [g, z] : lane_match_) {
    if (g == cg) {
      if (z != c0) throw FoldError("GPU " + std::to_string(gpu_) + " uses an unrotated connection");
      return;
    }
  }
  lane_match_.emplace_back(cg, c0);
}

uint32_t FoldStream::chunk_checked(uint8_t flags, Phase phase, uint64_t bytes, uint64_t stride,
                                   std::span<const uint32_t> sends, std::span<const uint32_t> recvs,
                                   uint32_t dep, uint32_t real_last) {
  if (gpu_ < 0) throw ModelError("collectives", "schedule op emitted without an open lane");
  if (stride != 0 && !recvs.empty()) throw FoldError("per-peer receive addressing");
  for (size_t k = 0; k < sends.size(); ++k) note_conn(sends[k], true, static_cast<uint16_t>(k));
  for (const uint32_t c : recvs) note_conn(c, false, 0);
  const LaneRec* d = dep == kNone ? nullptr : &lane_of(dep);
  if (storing()) {
    if (d != nullptr && d->gpu != gpu_) {
      throw FoldError("GPU " + std::to_string(gpu_) + " depends on another GPU");
    }
    Chunk ch{bytes,
             stride,
             flags,
             phase,
             static_cast<uint16_t>(sends.size()),
             static_cast<uint16_t>(recvs.size()),
             static_cast<uint32_t>(refs_.size()),
             d == nullptr ? kNone : d->local,
             d == nullptr ? kNone : dep - d->first,
             real_last};
    refs_.insert(refs_.end(), sends.begin(), sends.end());
    refs_.insert(refs_.end(), recvs.begin(), recvs.end());
    rep_[static_cast<size_t>(gpu_)][local_].push_back(ch);
  } else {
    const auto where = [&] {
      return "GPU " + std::to_string(gpu_) + " lane " + std::to_string(local_);
    };
    const std::vector<Chunk>& lane = *rep_lane_;
    if (at_ >= lane.size()) {
      throw FoldError(where() + " has more chunks than GPU " + std::to_string(rot_.rep(gpu_)) +
                      "'s");
    }
    const Chunk& x = lane[at_];
    if (x.bytes != bytes || x.stride != stride || x.flags != flags || x.phase != phase ||
        x.sends != sends.size() || x.recvs != recvs.size()) {
      throw FoldError(where() + " chunk " + std::to_string(at_) + " differs from GPU " +
                      std::to_string(rot_.rep(gpu_)) + "'s");
    }
    if ((d == nullptr) != (x.dep_lane == kNone) ||
        (d != nullptr &&
         (d->gpu != gpu_ || d->local != x.dep_lane || dep - d->first != x.dep_chunk))) {
      throw FoldError(where() + " depends on another GPU or a different op");
    }
    for (size_t k = 0; k < sends.size(); ++k) match(sends[k], refs_[x.refs + k]);
    for (size_t k = 0; k < recvs.size(); ++k) match(recvs[k], refs_[x.refs + x.sends + k]);
    // note_conn left last_send_ at sends[0] and last_recv_ at recvs.back(): their partners.
    if (!sends.empty()) paired_send_ = refs_[x.refs];
    if (!recvs.empty()) paired_recv_ = refs_[x.refs + x.sends + recvs.size() - 1];
  }
  ++at_;
  return next_++;
}

Schedule FoldStream::fold(Schedule s) {
  close_lane();
  gpu_ = -1;
  for (int g = rot_.reps(); g < rot_.size(); ++g) {
    const size_t have = lanes_per_gpu_[static_cast<size_t>(g)];
    const size_t want = rep_[static_cast<size_t>(rot_.rep(g))].size();
    if (have != want) {
      throw FoldError("GPU " + std::to_string(g) + " has " + std::to_string(have) + " lanes, GPU " +
                      std::to_string(rot_.rep(g)) + " has " + std::to_string(want));
    }
  }
  const size_t nc = s.conns.size();
  if (nc > key_.size()) grow(nc);
  std::unordered_map<uint64_t, uint32_t> by_key;
  by_key.reserve(nc * 2);
  for (uint32_t c = 0; c < nc; ++c) {
    if (nsend_[c] == 0) throw FoldError("connection without sends");
    if (nsend_[c] != nrecv_[c]) {
      throw ModelError("collectives", "connection " + std::to_string(c) + " (gpu" +
                                          std::to_string(s.conns[c].src) + " -> gpu" +
                                          std::to_string(s.conns[c].dst) + ") has " +
                                          std::to_string(nsend_[c]) + " sends but " +
                                          std::to_string(nrecv_[c]) + " receives");
    }
    by_key.emplace(key_[c], c);
  }
  const auto rotate = [&](uint32_t c, int by) {
    const auto it = by_key.find(with_gpu(key_[c], rot_.add(key_gpu(key_[c]), by)));
    if (it == by_key.end()) {
      throw FoldError("connection " + std::to_string(c) + " has no counterpart rotated by " +
                      std::to_string(by));
    }
    return it->second;
  };
  for (const auto& [cg, c0, g] : matches_) {
    if (rotate(cg, rot_.neg(rot_.shift(g))) != c0) {
      throw FoldError("GPU " + std::to_string(g) + " uses an unrotated connection");
    }
  }
  std::vector<uint32_t> kept(s.lanes.size());  // s holds the representatives' lanes alone
  for (uint32_t l = 0; l < kept.size(); ++l) kept[l] = l;
  return fold_onto_reps(s, kept, rot_, rotate);
}

}  // namespace t3sim::collectives
