import { describeWithEngine } from "../support/engines.js";
import { containerTests } from "./container-suite.js";

describeWithEngine("docker", "docker environment", () => containerTests("docker"));
