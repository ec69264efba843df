// Devices (DroidStar §2.1, §5.1–5.3): where membership queries really run.
// Design note: everything here is a typestar::Device or feeds one. InProcessDevice runs a class
// described by a ClassDefinition (the LearningPurpose counterpart) with real asynchronous callbacks
// and quiescence timing; HttpDevice reaches the same over the HTTP protocol /v1 served by an Agent
// (the `typestar-device` binary); make_device turns a URL
// (model:, inproc:, http://) into a device. Faults surface as DeviceError, never as wrong outputs.
#pragma once

#include "typestar/device/agent.hpp"
#include "typestar/device/factory.hpp"
#include "typestar/device/http_device.hpp"
#include "typestar/device/inprocess.hpp"
#include "typestar/device/purpose.hpp"
#include "typestar/device/simulated.hpp"
