#include "nhsim/client/client.hpp"

#include <limits>
#include <random>
#include <thread>

namespace nhsim::client {

std::string code_name(grpc::StatusCode code) {
  switch (code) {
    case grpc::StatusCode::OK:
      return "OK";
    case grpc::StatusCode::CANCELLED:
      return "CANCELLED";
    case grpc::StatusCode::UNKNOWN:
      return "UNKNOWN";
    case grpc::StatusCode::INVALID_ARGUMENT:
      return "INVALID_ARGUMENT";
    case grpc::StatusCode::DEADLINE_EXCEEDED:
      return "DEADLINE_EXCEEDED";
    case grpc::StatusCode::NOT_FOUND:
      return "NOT_FOUND";
    case grpc::StatusCode::ALREADY_EXISTS:
      return "ALREADY_EXISTS";
    case grpc::StatusCode::PERMISSION_DENIED:
      return "PERMISSION_DENIED";
    case grpc::StatusCode::RESOURCE_EXHAUSTED:
      return "RESOURCE_EXHAUSTED";
    case grpc::StatusCode::FAILED_PRECONDITION:
      return "FAILED_PRECONDITION";
    case grpc::StatusCode::ABORTED:
      return "ABORTED";
    case grpc::StatusCode::OUT_OF_RANGE:
      return "OUT_OF_RANGE";
    case grpc::StatusCode::UNIMPLEMENTED:
      return "UNIMPLEMENTED";
    case grpc::StatusCode::INTERNAL:
      return "INTERNAL";
    case grpc::StatusCode::UNAVAILABLE:
      return "UNAVAILABLE";
    case grpc::StatusCode::DATA_LOSS:
      return "DATA_LOSS";
    case grpc::StatusCode::UNAUTHENTICATED:
      return "UNAUTHENTICATED";
    default:
      return "CODE_" + std::to_string(static_cast<int>(code));
  }
}

RpcError::RpcError(const grpc::Status& status)
    : std::runtime_error(code_name(status.error_code()) + ": " + status.error_message()),
      code_(status.error_code()),
      message_(status.error_message()) {}

namespace {

void check(const grpc::Status& status) {
  if (!status.ok()) throw RpcError(status);
}

}  // namespace

std::shared_ptr<grpc::ChannelCredentials> channel_credentials(const Connection& connection) {
  if (!connection.tls) return grpc::InsecureChannelCredentials();
  grpc::SslCredentialsOptions ssl;
  ssl.pem_root_certs = connection.tls_ca;
  ssl.pem_cert_chain = connection.tls_cert;
  ssl.pem_private_key = connection.tls_key;
  return grpc::SslCredentials(ssl);
}

namespace {

Connection plaintext(const std::string& address) {
  Connection connection;
  connection.address = address;
  return connection;
}

}  // namespace

Client::Client(const std::string& address, std::chrono::milliseconds call_timeout)
    : Client(plaintext(address), call_timeout) {}

Client::Client(const Connection& connection, std::chrono::milliseconds call_timeout)
    : call_timeout_(call_timeout),
      authorization_(connection.token.empty() ? "" : "Bearer " + connection.token) {
  grpc::ChannelArguments arguments;
  arguments.SetMaxReceiveMessageSize(-1);  // unlimited: the server bounds its answers
  arguments.SetMaxSendMessageSize(connection.max_message_mb << 20);
  channel_ =
      grpc::CreateCustomChannel(connection.address, channel_credentials(connection), arguments);
  stub_ = v1::EnsembleService::NewStub(channel_);
}

void Client::prepare(grpc::ClientContext& context, bool deadline) const {
  if (deadline) context.set_deadline(std::chrono::system_clock::now() + call_timeout_);
  if (!authorization_.empty()) context.AddMetadata("authorization", authorization_);
}

v1::ListSystemsResponse Client::list_systems() const {
  grpc::ClientContext context;
  prepare(context);
  v1::ListSystemsResponse response;
  check(stub_->ListSystems(&context, v1::ListSystemsRequest(), &response));
  return response;
}

v1::SystemInfo Client::register_system(const std::string& name,
                                       const v1::CustomSystem& custom_system,
                                       const std::string& description) const {
  grpc::ClientContext context;
  prepare(context);
  v1::RegisterSystemRequest request;
  request.set_name(name);
  *request.mutable_custom_system() = custom_system;
  request.set_description(description);
  v1::SystemInfo response;
  check(stub_->RegisterSystem(&context, request, &response));
  return response;
}

void Client::delete_system(const std::string& name) const {
  grpc::ClientContext context;
  prepare(context);
  v1::DeleteSystemRequest request;
  request.set_name(name);
  v1::DeleteSystemResponse response;
  check(stub_->DeleteSystem(&context, request, &response));
}

v1::ListIntegratorsResponse Client::list_integrators() const {
  grpc::ClientContext context;
  prepare(context);
  v1::ListIntegratorsResponse response;
  check(stub_->ListIntegrators(&context, v1::ListIntegratorsRequest(), &response));
  return response;
}

v1::Job Client::submit(const v1::SubmitEnsembleRequest& spec, std::string idempotency_key) const {
  if (idempotency_key.empty()) {
    std::random_device device;  // 128 bits: unique among this identity's jobs
    static constexpr char kHex[] = "0123456789abcdef";
    for (int k = 0; k < 32; ++k) idempotency_key += kHex[device() % 16];
  }
  // A submit whose answer was lost (the server restarted, the connection broke) is sent again
  // with the same key: the server answers the job the first one created, if it did.
  for (int attempt = 0;; ++attempt) {
    grpc::ClientContext context;
    prepare(context);
    context.AddMetadata("idempotency-key", idempotency_key);
    v1::Job job;
    const grpc::Status status = stub_->SubmitEnsemble(&context, spec, &job);
    if (status.error_code() == grpc::StatusCode::UNAVAILABLE && attempt < 3) {
      std::this_thread::sleep_for(std::chrono::milliseconds(250 << attempt));
      continue;
    }
    check(status);
    return job;
  }
}

v1::Job Client::get_job(const std::string& job_id) const {
  grpc::ClientContext context;
  prepare(context);
  v1::GetJobRequest request;
  request.set_job_id(job_id);
  v1::Job job;
  check(stub_->GetJob(&context, request, &job));
  return job;
}

v1::Job Client::watch(const std::string& job_id,
                      const std::function<void(const v1::Job&)>& on_update) const {
  grpc::ClientContext context;
  prepare(context, /*deadline=*/false);
  v1::WatchJobRequest request;
  request.set_job_id(job_id);
  auto reader = stub_->WatchJob(&context, request);
  v1::Job job;
  v1::Job last;
  bool any = false;
  while (reader->Read(&job)) {
    last = job;
    any = true;
    if (on_update) on_update(last);
  }
  check(reader->Finish());
  if (!any) return get_job(job_id);
  return last;
}

v1::EnsembleResult Client::result(const std::string& job_id, bool partial) const {
  grpc::ClientContext context;
  prepare(context);
  v1::GetResultRequest request;
  request.set_job_id(job_id);
  request.set_partial(partial);
  auto reader = stub_->StreamResult(&context, request);
  std::string bytes;
  v1::ResultChunk chunk;
  while (reader->Read(&chunk)) {
    if (bytes.empty()) bytes.reserve(static_cast<std::size_t>(chunk.total_bytes()));
    bytes += chunk.data();
  }
  check(reader->Finish());
  v1::EnsembleResult result;
  if (!result.ParseFromString(bytes)) {
    throw RpcError(grpc::Status(grpc::StatusCode::DATA_LOSS,
                                "job " + job_id + ": the streamed result does not parse"));
  }
  return result;
}

v1::Job Client::cancel(const std::string& job_id) const {
  grpc::ClientContext context;
  prepare(context);
  v1::CancelJobRequest request;
  request.set_job_id(job_id);
  v1::Job job;
  check(stub_->CancelJob(&context, request, &job));
  return job;
}

std::vector<v1::Job> Client::list_jobs() const {
  std::vector<v1::Job> jobs;
  v1::ListJobsRequest request;
  request.set_page_size(1000);
  do {
    grpc::ClientContext context;
    prepare(context);
    v1::ListJobsResponse page;
    check(stub_->ListJobs(&context, request, &page));
    jobs.insert(jobs.end(), page.jobs().begin(), page.jobs().end());
    request.set_page_token(page.next_page_token());
  } while (!request.page_token().empty());
  return jobs;
}

void Client::delete_job(const std::string& job_id) const {
  grpc::ClientContext context;
  prepare(context);
  v1::DeleteJobRequest request;
  request.set_job_id(job_id);
  v1::DeleteJobResponse response;
  check(stub_->DeleteJob(&context, request, &response));
}

}  // namespace nhsim::client
