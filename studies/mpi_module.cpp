// t3sim's MPI module (mpi_module.h): each entry is one MPI call on MPI_COMM_WORLD. Built as its own
// shared object that links Open MPI, so that only distributed sweeps load it.
#include "studies/mpi_module.h"

#include <mpi.h>

namespace {

void init(int* rank, int* size) {
  int provided = 0;
  // Ranks > 0 send rows from whichever worker thread finished the point (one at a time).
  MPI_Init_thread(nullptr, nullptr, MPI_THREAD_SERIALIZED, &provided);
  MPI_Comm_size(MPI_COMM_WORLD, size);
  MPI_Comm_rank(MPI_COMM_WORLD, rank);
}

void finalize() { MPI_Finalize(); }

void abort_all(int code) { MPI_Abort(MPI_COMM_WORLD, code); }

void bcast(char* data, int bytes) { MPI_Bcast(data, bytes, MPI_CHAR, 0, MPI_COMM_WORLD); }

void* isend(const char* data, int bytes, int tag) {
  auto* r = new MPI_Request(MPI_REQUEST_NULL);
  MPI_Isend(data, bytes, MPI_CHAR, 0, tag, MPI_COMM_WORLD, r);
  return r;
}

int test(void* request) {
  auto* r = static_cast<MPI_Request*>(request);
  int done = 0;
  MPI_Test(r, &done, MPI_STATUS_IGNORE);
  if (done) delete r;
  return done;
}

void wait(void* request) {
  auto* r = static_cast<MPI_Request*>(request);
  MPI_Wait(r, MPI_STATUS_IGNORE);
  delete r;
}

void send(const char* data, int bytes, int tag) {
  MPI_Send(data, bytes, MPI_CHAR, 0, tag, MPI_COMM_WORLD);
}

int probe(int block, int* source, int* tag, int* bytes) {
  MPI_Status st;
  int arrived = 1;
  if (block) {
    MPI_Probe(MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &st);
  } else {
    MPI_Iprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &arrived, &st);
  }
  if (!arrived) return 0;
  *source = st.MPI_SOURCE;
  *tag = st.MPI_TAG;
  MPI_Get_count(&st, MPI_CHAR, bytes);
  return 1;
}

void recv(char* data, int bytes, int source, int tag) {
  MPI_Recv(data, bytes, MPI_CHAR, source, tag, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
}

}  // namespace

extern "C" __attribute__((visibility("default"))) const T3simMpiApi* t3sim_mpi_api() {
  static const T3simMpiApi api{t3sim::studies::kMpiModuleVersion,
                               init,
                               finalize,
                               abort_all,
                               bcast,
                               isend,
                               test,
                               wait,
                               send,
                               probe,
                               recv};
  return &api;
}
