// ModelImpl<S>: the SystemModel of a concrete system type S (dynamic interface over the
// fixed-size system). Not used in step loops.
#pragma once

#include <utility>

#include "nhsim/controls.hpp"
#include "nhsim/holonomic.hpp"
#include "nhsim/model.hpp"
#include "nhsim/stepper_factory.hpp"

namespace nhsim {

template <class S>
class ModelImpl final : public SystemModel {
 public:
  explicit ModelImpl(S sys) : sys_(std::move(sys)) {}

  int nq() const override { return sys_.nq(); }
  int nc() const override { return sys_.nc(); }
  double potential(const Eigen::VectorXd& q) const override {
    return sys_.potential(typename S::VecQ(q));
  }
  Eigen::MatrixXd mass_matrix(const Eigen::VectorXd& q) const override {
    return sys_.mass_matrix_dyn(q);
  }
  Eigen::MatrixXd constraint_matrix(const Eigen::VectorXd& q) const override {
    typename S::MatCQ mu(sys_.nc(), sys_.nq());
    sys_.constraint(typename S::VecQ(q), mu);
    return mu;
  }
  double hamiltonian(const Eigen::VectorXd& q, const Eigen::VectorXd& p) const override {
    return sys_.hamiltonian(typename S::VecQ(q), typename S::VecQ(p));
  }
  double constraint_residual(const Eigen::VectorXd& q, const Eigen::VectorXd& p) const override {
    return sys_.constraint_residual(typename S::VecQ(q), typename S::VecQ(p));
  }
  std::unique_ptr<Stepper> make_stepper(const IntegratorChoice& choice) const override {
    if (auto why = integrator_not_applicable<S>(choice.integrator)) {
      throw SpecError("integrator", *why);
    }
    if (auto why = integrator_problem(choice.integrator)) throw SpecError("integrator", *why);
    auto st = make_stepper_for(sys_, choice);
    if (!st) throw SpecError("integrator", "unknown integrator '" + choice.integrator + "'");
    return st;
  }
  std::optional<std::string> integrator_problem(const std::string& id) const override {
    if constexpr (requires { sys_.integrator_problem(id); }) {
      return sys_.integrator_problem(id);
    } else {
      (void)id;
      return std::nullopt;
    }
  }
  std::unique_ptr<LaneStepper> make_lane_stepper(const IntegratorChoice& choice,
                                                 const LaneSettings& lanes) const override {
    return make_lane_stepper_for(sys_, choice, lanes);
  }
  int ng() const override {
    if constexpr (HasHolonomicConstraints<S>) {
      return holonomic_count(sys_);
    } else {
      return 0;
    }
  }
  double position_constraint_residual(const Eigen::VectorXd& q) const override {
    if constexpr (HasHolonomicConstraints<S>) {
      return nhsim::position_constraint_residual(sys_, typename S::VecQ(q));
    } else {
      (void)q;
      return 0.0;
    }
  }
  double velocity_constraint_residual(const Eigen::VectorXd& q,
                                      const Eigen::VectorXd& p) const override {
    if constexpr (HasHolonomicConstraints<S>) {
      return nhsim::velocity_constraint_residual(sys_, typename S::VecQ(q), typename S::VecQ(p));
    } else {
      (void)q;
      (void)p;
      return 0.0;
    }
  }
  std::optional<std::string> state_problem(const Eigen::VectorXd& q) const override {
    if constexpr (requires { sys_.state_problem(q); }) {
      return sys_.state_problem(q);
    } else {
      (void)q;
      return std::nullopt;
    }
  }
  std::vector<std::string> observable_names() const override {
    if constexpr (requires { sys_.observable_names(); }) {  // static, or per system (custom)
      const auto& names = sys_.observable_names();
      return std::vector<std::string>(names.begin(), names.end());
    } else {
      return {};
    }
  }
  double observable(int k, const Eigen::VectorXd& q, const Eigen::VectorXd& p) const override {
    if constexpr (requires { sys_.observable_names(); }) {
      return sys_.observable(k, typename S::VecQ(q), typename S::VecQ(p));
    } else {
      (void)k;
      (void)q;
      (void)p;
      return 0.0;
    }
  }
  void set_controls(const std::vector<ControlSpec>& controls) override {
    if constexpr (has_controls<S>) {
      sys_.set_controls(controls);
    } else {
      SystemModel::set_controls(controls);
    }
  }
  void set_loads(const std::vector<LoadSpec>& loads) override {
    if constexpr (has_loads<S>) {
      sys_.set_loads(loads);
    } else {
      SystemModel::set_loads(loads);
    }
  }
  const S& system() const { return sys_; }

 private:
  S sys_;
};

}  // namespace nhsim
