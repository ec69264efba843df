// The Device interface: what a learner or a conformance suite drives (DroidStar §2.1, §5.1–5.3).
// Design note: this header is the interface only — it pulls in no implementation, no libcurl and
// no agent server. The interface itself lives with the oracles (typestar/sul/device.hpp), because
// the layers below the devices use it; the implementations are one header each:
//   typestar/sul/model_device.hpp     ModelDevice: a Mealy machine or a spec's closure, simulated
//   typestar/device/inprocess.hpp     InProcessDevice: your class behind a LearningPurpose (purpose.hpp)
//   typestar/device/http_device.hpp   HttpDevice: an agent speaking /v1 (device/PROTOCOL.md)
//   typestar/device/agent.hpp         Agent: serve in-process classes over /v1
//   typestar/device/factory.hpp       make_device(URL): model:, inproc:, http://
// Several devices of one class answer batches in parallel under one OracleStack (sul/stack.hpp).
#pragma once

#include "typestar/sul/device.hpp"
