import { describeWithEngine } from "../support/engines.js";
import { containerTests } from "./container-suite.js";

describeWithEngine("podman", "podman environment", () => containerTests("podman"));
