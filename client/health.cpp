#include "nhsim/client/health.hpp"

#include <google/protobuf/unknown_field_set.h>
#include <grpcpp/generic/generic_stub.h>

#include <vector>

namespace nhsim::client {

std::optional<std::uint64_t> health_status(const std::shared_ptr<grpc::Channel>& channel,
                                           const std::string& service,
                                           std::chrono::milliseconds timeout) {
  grpc::GenericStub stub(channel);
  // HealthCheckRequest { string service = 1; }
  std::string request;
  if (!service.empty()) {
    request.push_back(static_cast<char>((1 << 3) | 2));
    request.push_back(static_cast<char>(service.size()));
    request += service;
  }
  grpc::Slice slice(request);
  grpc::ByteBuffer request_buffer(&slice, 1);
  grpc::ByteBuffer response_buffer;
  grpc::ClientContext context;
  context.set_deadline(std::chrono::system_clock::now() + timeout);
  grpc::CompletionQueue queue;
  auto call =
      stub.PrepareUnaryCall(&context, "/grpc.health.v1.Health/Check", request_buffer, &queue);
  call->StartCall();
  grpc::Status status;
  call->Finish(&response_buffer, &status, reinterpret_cast<void*>(1));
  void* tag = nullptr;
  bool ok = false;
  if (!queue.Next(&tag, &ok) || !ok || !status.ok()) return std::nullopt;
  std::vector<grpc::Slice> slices;
  if (!response_buffer.Dump(&slices).ok()) return std::nullopt;
  std::string response;
  for (const auto& s : slices) response.append(reinterpret_cast<const char*>(s.begin()), s.size());
  // HealthCheckResponse { ServingStatus status = 1; }; an absent field is UNKNOWN (0).
  google::protobuf::UnknownFieldSet fields;
  if (!fields.ParseFromString(response)) return std::nullopt;
  for (int i = 0; i < fields.field_count(); ++i) {
    if (fields.field(i).number() == 1) return fields.field(i).varint();
  }
  return 0;
}

}  // namespace nhsim::client
