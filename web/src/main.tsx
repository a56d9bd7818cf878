import { render } from "preact";
import "katex/dist/katex.min.css";
import "./style.css";
import { App } from "./App";
import { start } from "./live";

render(<App />, document.getElementById("app")!);
void start();
