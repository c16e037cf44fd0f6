// The C interface of t3sim's MPI module (libt3sim_mpi.so, built from mpi_module.cpp when CMake
// finds MPI): the few MPI calls a distributed sweep makes, behind plain C types. The t3sim binary
// does not link Open MPI (loading its libraries cost every run ~5 ms of start-up on a 2-core VM);
// it opens the module with dlopen() only when a launcher started the process (sweep_mpi.cpp).
// Contract: t3sim_mpi_api() returns a table whose `version` is kMpiModuleVersion; every message
// goes to or comes from rank 0 on MPI_COMM_WORLD; a request handle from isend is freed by test()
// once it reports done, or by wait().
#pragma once

extern "C" {

struct T3simMpiApi {
  int version;
  void (*init)(int* rank, int* size);  // MPI_Init_thread(MPI_THREAD_SERIALIZED)
  void (*finalize)();
  void (*abort)(int code);                                     // MPI_Abort: ends every rank
  void (*bcast)(char* data, int bytes);                        // from rank 0
  void* (*isend)(const char* data, int bytes, int tag);        // to rank 0
  int (*test)(void* request);                                  // 1: sent (request freed)
  void (*wait)(void* request);                                 // blocks; frees the request
  void (*send)(const char* data, int bytes, int tag);          // blocking, to rank 0
  int (*probe)(int block, int* source, int* tag, int* bytes);  // 1: a message is waiting
  void (*recv)(char* data, int bytes, int source, int tag);    // the message probe() named
};

const T3simMpiApi* t3sim_mpi_api();
}

namespace t3sim::studies {
inline constexpr int kMpiModuleVersion = 1;
}  // namespace t3sim::studies
