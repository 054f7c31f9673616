<?xml version="1.0" encoding="utf-8"?>
<!DOCTYPE TS>
<TS version="2.1" language="zh_CN">
<context>
    <name>LaneModel</name>
    <message>
        <source>GPU</source>
        <translation>GPU</translation>
    </message>
    <message>
        <source>Link</source>
        <translation>链路</translation>
    </message>
    <message>
        <source>Collective</source>
        <translation>集合通信</translation>
    </message>
    <message>
        <source>Lane</source>
        <translation>泳道</translation>
    </message>
    <message>
        <source>Kind</source>
        <translation>类型</translation>
    </message>
    <message>
        <source>Spans</source>
        <translation>区间数</translation>
    </message>
</context>
<context>
    <name>LoadedDocument</name>
    <message>
        <source>%1 samples/s, %2% scaling efficiency, %3 GPUs</source>
        <translation>%1 样本/秒，扩展效率 %2%，%3 块 GPU</translation>
    </message>
</context>
<context>
    <name>MainWindow</name>
    <message>
        <source>syncsim</source>
        <translation>syncsim</translation>
    </message>
    <message>
        <source>Timeline</source>
        <translation>时间线</translation>
    </message>
    <message>
        <source>Ring</source>
        <translation>环</translation>
    </message>
    <message>
        <source>Scaling</source>
        <translation>扩展性</translation>
    </message>
    <message>
        <source>Scenario</source>
        <translation>场景</translation>
    </message>
    <message>
        <source>Loading %1 ...</source>
        <translation>正在加载 %1 ...</translation>
    </message>
    <message>
        <source>Canceled.</source>
        <translation>已取消。</translation>
    </message>
    <message>
        <source>Open a scenario, a trace.json or a sweep CSV (File &gt; Open, or drop it here).</source>
        <translation>打开场景、trace.json 或扫描 CSV（文件 &gt; 打开，或拖放到此处）。</translation>
    </message>
    <message>
        <source>Add parameter</source>
        <translation>添加参数</translation>
    </message>
    <message>
        <source>Run again</source>
        <translation>重新运行</translation>
    </message>
    <message>
        <source>Cancel</source>
        <translation>取消</translation>
    </message>
    <message>
        <source>Parameters (as --set key=value; empty keeps the file&apos;s value):</source>
        <translation>参数（同 --set 键=值；留空则使用文件中的值）：</translation>
    </message>
    <message>
        <source>&amp;File</source>
        <translation>文件(&amp;F)</translation>
    </message>
    <message>
        <source>&amp;Open...</source>
        <translation>打开(&amp;O)...</translation>
    </message>
    <message>
        <source>Open</source>
        <translation>打开</translation>
    </message>
    <message>
        <source>Scenarios, traces and sweeps (*.yaml *.yml *.json *.csv);;All files (*)</source>
        <translation>场景、跟踪和扫描 (*.yaml *.yml *.json *.csv);;所有文件 (*)</translation>
    </message>
    <message>
        <source>Open &amp;Recent</source>
        <translation>最近打开(&amp;R)</translation>
    </message>
    <message>
        <source>&amp;Export View...</source>
        <translation>导出视图(&amp;E)...</translation>
    </message>
    <message>
        <source>Ctrl+E</source>
        <translation>Ctrl+E</translation>
    </message>
    <message>
        <source>&amp;Quit</source>
        <translation>退出(&amp;Q)</translation>
    </message>
    <message>
        <source>&amp;View</source>
        <translation>视图(&amp;V)</translation>
    </message>
    <message>
        <source>&amp;Fit</source>
        <translation>适应窗口(&amp;F)</translation>
    </message>
    <message>
        <source>F</source>
        <translation>F</translation>
    </message>
    <message>
        <source>Zoom &amp;In</source>
        <translation>放大(&amp;I)</translation>
    </message>
    <message>
        <source>Zoom &amp;Out</source>
        <translation>缩小(&amp;O)</translation>
    </message>
    <message>
        <source>Show &amp;Link Lanes</source>
        <translation>显示链路泳道(&amp;L)</translation>
    </message>
    <message>
        <source>Show &amp;Collective Lanes</source>
        <translation>显示集合通信泳道(&amp;C)</translation>
    </message>
    <message>
        <source>&amp;Help</source>
        <translation>帮助(&amp;H)</translation>
    </message>
    <message>
        <source>&amp;About</source>
        <translation>关于(&amp;A)</translation>
    </message>
    <message>
        <source>About syncsim</source>
        <translation>关于 syncsim</translation>
    </message>
    <message>
        <source>syncsim: a discrete-event simulator of distributed gradient synchronization.</source>
        <translation>syncsim：分布式梯度同步的离散事件模拟器。</translation>
    </message>
    <message>
        <source>Failed.</source>
        <translation>失败。</translation>
    </message>
    <message>
        <source>Cannot open %1</source>
        <translation>无法打开 %1</translation>
    </message>
    <message>
        <source>%1 - syncsim</source>
        <translation>%1 - syncsim</translation>
    </message>
    <message>
        <source>Loaded.</source>
        <translation>已加载。</translation>
    </message>
    <message>
        <source>%1 spans on %2 lanes</source>
        <translation>%2 条泳道上共 %1 个区间</translation>
    </message>
    <message>
        <source>Export View</source>
        <translation>导出视图</translation>
    </message>
    <message>
        <source>PNG image (*.png);;SVG drawing (*.svg)</source>
        <translation>PNG 图像 (*.png);;SVG 矢量图 (*.svg)</translation>
    </message>
    <message>
        <source>Export failed</source>
        <translation>导出失败</translation>
    </message>
</context>
<context>
    <name>ParameterModel</name>
    <message>
        <source>Empty: the value in the scenario file. Otherwise as --set %1=VALUE</source>
        <translation>留空：使用场景文件中的值。否则等同于 --set %1=值</translation>
    </message>
    <message>
        <source>Parameter</source>
        <translation>参数</translation>
    </message>
    <message>
        <source>Value</source>
        <translation>值</translation>
    </message>
</context>
<context>
    <name>QObject</name>
    <message>
        <source>GPUs</source>
        <translation>GPU 数量</translation>
    </message>
</context>
<context>
    <name>RingPanel</name>
    <message>
        <source>Play</source>
        <translation>播放</translation>
    </message>
    <message>
        <source>Step:</source>
        <translation>步骤：</translation>
    </message>
    <message>
        <source>%1 of %2 steps done</source>
        <translation>已完成 %1 / %2 步</translation>
    </message>
    <message>
        <source>Pause</source>
        <translation>暂停</translation>
    </message>
</context>
<context>
    <name>RingStepModel</name>
    <message>
        <source>%1/%2</source>
        <translation>%1/%2</translation>
    </message>
    <message>
        <source>Rank %1 holds chunk %2 summed over %3 of %4 ranks</source>
        <translation>第 %1 号进程持有的数据块 %2 已累加 %4 个进程中的 %3 个</translation>
    </message>
    <message>
        <source>Chunk %1</source>
        <translation>数据块 %1</translation>
    </message>
    <message>
        <source>Rank %1</source>
        <translation>进程 %1</translation>
    </message>
</context>
<context>
    <name>RingView</name>
    <message>
        <source>Done: after %1 steps every rank holds every chunk fully reduced</source>
        <translation>完成：%1 步之后，每个进程都持有全部完全规约的数据块</translation>
    </message>
    <message>
        <source>Reduce-scatter, step %1 of %2 (overall %3 of %4)</source>
        <translation>规约散射（Reduce-scatter），第 %1 / %2 步（总第 %3 / %4 步）</translation>
    </message>
    <message>
        <source>All-gather, step %1 of %2 (overall %3 of %4)</source>
        <translation>全收集（All-gather），第 %1 / %2 步（总第 %3 / %4 步）</translation>
    </message>
    <message>
        <source>Ring AllReduce on %1 ranks: </source>
        <translation>%1 个进程上的环形 AllReduce：</translation>
    </message>
    <message>
        <source>chunk %1</source>
        <translation>数据块 %1</translation>
    </message>
    <message>
        <source>%1 GB/s</source>
        <translation>%1 GB/秒</translation>
    </message>
    <message>
        <source>GPU %1</source>
        <translation>GPU %1</translation>
    </message>
    <message>
        <source>Each strip: a rank&apos;s chunks, coloured per chunk, filled by the share of ranks summed in; black frame: fully reduced. ▲ sends, ▼ receives this step; arrows: this step&apos;s transfers.</source>
        <translation>每个色条：一个进程的各数据块，按数据块着色，填充高度表示已累加的进程比例；黑框：已完全规约。▲ 本步发送，▼ 本步接收；箭头：本步的传输。</translation>
    </message>
</context>
<context>
    <name>ScalingChartView</name>
    <message>
        <source>Throughput</source>
        <translation>吞吐量</translation>
    </message>
    <message>
        <source>Scaling efficiency</source>
        <translation>扩展效率</translation>
    </message>
    <message>
        <source>Open a sweep CSV (syncsim sweep ... -o results.csv) to plot its scaling.</source>
        <translation>打开扫描 CSV（syncsim sweep ... -o results.csv）以绘制扩展曲线。</translation>
    </message>
    <message>
        <source>Samples per second</source>
        <translation>每秒样本数</translation>
    </message>
    <message>
        <source>Efficiency (%)</source>
        <translation>效率 (%)</translation>
    </message>
    <message>
        <source>%1 (ideal linear)</source>
        <translation>%1（理想线性）</translation>
    </message>
    <message>
        <source>Ideal linear (100 %)</source>
        <translation>理想线性 (100 %)</translation>
    </message>
</context>
<context>
    <name>ScalingModel</name>
    <message>
        <source>Configuration</source>
        <translation>配置</translation>
    </message>
    <message>
        <source>GPUs</source>
        <translation>GPU 数量</translation>
    </message>
    <message>
        <source>Throughput (samples/s)</source>
        <translation>吞吐量（样本/秒）</translation>
    </message>
    <message>
        <source>Ideal linear (samples/s)</source>
        <translation>理想线性（样本/秒）</translation>
    </message>
    <message>
        <source>Scaling efficiency</source>
        <translation>扩展效率</translation>
    </message>
</context>
<context>
    <name>Screenshot</name>
    <message>
        <source>the scaling view needs a sweep CSV, not %1</source>
        <translation>扩展性视图需要扫描 CSV，而不是 %1</translation>
    </message>
    <message>
        <source>the timeline and ring views need a scenario or a trace, not %1</source>
        <translation>时间线和环视图需要场景或跟踪文件，而不是 %1</translation>
    </message>
</context>
<context>
    <name>SpanKind</name>
    <message>
        <source>Forward</source>
        <translation>前向</translation>
    </message>
    <message>
        <source>Backward</source>
        <translation>反向</translation>
    </message>
    <message>
        <source>Communication</source>
        <translation>通信</translation>
    </message>
    <message>
        <source>Idle</source>
        <translation>空闲</translation>
    </message>
    <message>
        <source>Optimizer</source>
        <translation>优化器</translation>
    </message>
    <message>
        <source>Collective</source>
        <translation>集合通信</translation>
    </message>
    <message>
        <source>Collective step</source>
        <translation>集合通信步骤</translation>
    </message>
    <message>
        <source>Fault</source>
        <translation>故障</translation>
    </message>
    <message>
        <source>Other</source>
        <translation>其他</translation>
    </message>
</context>
<context>
    <name>SweepCsv</name>
    <message>
        <source>empty file: expected a CSV header line</source>
        <translation>空文件：应有 CSV 表头行</translation>
    </message>
    <message>
        <source>no GPU count column (gpus, workers, ranks or n)</source>
        <translation>没有 GPU 数量列（gpus、workers、ranks 或 n）</translation>
    </message>
    <message>
        <source>no throughput column (samples_per_second, throughput or samples/s)</source>
        <translation>没有吞吐量列（samples_per_second、throughput 或 samples/s）</translation>
    </message>
    <message>
        <source>%1 fields, the header has %2</source>
        <translation>%1 个字段，表头有 %2 个</translation>
    </message>
    <message>
        <source>%1: expected a whole GPU count, got &apos;%2&apos;</source>
        <translation>%1：应为整数 GPU 数量，实际为“%2”</translation>
    </message>
    <message>
        <source>no data rows after the header</source>
        <translation>表头之后没有数据行</translation>
    </message>
    <message>
        <source>cannot open: %1</source>
        <translation>无法打开：%1</translation>
    </message>
    <message>
        <source>%1: expected a throughput, got &apos;%2&apos;</source>
        <translation>%1：应为吞吐量，实际为“%2”</translation>
    </message>
    <message>
        <source>%1: expected a number, got &apos;%2&apos;</source>
        <translation>%1：应为数字，实际为“%2”</translation>
    </message>
    <message>
        <source>sweep</source>
        <translation>扫描</translation>
    </message>
</context>
<context>
    <name>TimeScale</name>
    <message>
        <source>s</source>
        <translation>秒</translation>
    </message>
    <message>
        <source>ms</source>
        <translation>毫秒</translation>
    </message>
    <message>
        <source>µs</source>
        <translation>微秒</translation>
    </message>
    <message>
        <source>ns</source>
        <translation>纳秒</translation>
    </message>
    <message>
        <source>ps</source>
        <translation>皮秒</translation>
    </message>
</context>
<context>
    <name>TimelineData</name>
    <message>
        <source>%1 steps</source>
        <translation>%1 步骤</translation>
    </message>
</context>
<context>
    <name>TimelineView</name>
    <message>
        <source>Open a scenario (YAML) or a trace (trace.json) to see its timeline.</source>
        <translation>打开场景（YAML）或跟踪文件（trace.json）以查看时间线。</translation>
    </message>
    <message>
        <source>Link utilization</source>
        <translation>链路利用率</translation>
    </message>
    <message>
        <source>%1 lanes</source>
        <translation>%1 条泳道</translation>
    </message>
    <message>
        <source>Kind: %1</source>
        <translation>类型：%1</translation>
    </message>
    <message>
        <source>Lane: %1</source>
        <translation>泳道：%1</translation>
    </message>
    <message>
        <source>Iteration: %1</source>
        <translation>迭代：%1</translation>
    </message>
    <message>
        <source>Bucket: %1</source>
        <translation>梯度桶：%1</translation>
    </message>
    <message>
        <source>Bytes: %1 (%2)</source>
        <translation>字节数：%1（%2）</translation>
    </message>
    <message>
        <source>Start: %1</source>
        <translation>开始：%1</translation>
    </message>
    <message>
        <source>Duration: %1</source>
        <translation>时长：%1</translation>
    </message>
    <message>
        <source>Peers: %1</source>
        <translation>参与方：%1</translation>
    </message>
</context>
<context>
    <name>ViewExport</name>
    <message>
        <source>syncsim view</source>
        <translation>syncsim 视图</translation>
    </message>
    <message>
        <source>cannot write %1</source>
        <translation>无法写入 %1</translation>
    </message>
    <message>
        <source>cannot write %1 (use a .png or .svg name)</source>
        <translation>无法写入 %1（请使用 .png 或 .svg 文件名）</translation>
    </message>
</context>
<context>
    <name>main</name>
    <message>
        <source>--screenshot needs exactly one INPUT file</source>
        <translation>--screenshot 需要且仅需要一个输入文件</translation>
    </message>
    <message>
        <source>--view: expected timeline, ring or scaling, got &apos;%1&apos;</source>
        <translation>--view：应为 timeline、ring 或 scaling，实际为“%1”</translation>
    </message>
    <message>
        <source>--step: expected a step number &gt;= 0, got &apos;%1&apos;</source>
        <translation>--step：应为 &gt;= 0 的步骤编号，实际为“%1”</translation>
    </message>
    <message>
        <source>--size: expected WIDTHxHEIGHT of at least 100x100, got &apos;%1&apos;</source>
        <translation>--size：应为至少 100x100 的 宽x高，实际为“%1”</translation>
    </message>
    <message>
        <source>cannot write %1 (a .png name is expected)</source>
        <translation>无法写入 %1（应为 .png 文件名）</translation>
    </message>
    <message>
        <source>Shows syncsim runs: timeline, ring AllReduce steps, scaling charts.</source>
        <translation>显示 syncsim 运行结果：时间线、环形 AllReduce 步骤、扩展性图表。</translation>
    </message>
    <message>
        <source>A scenario (.yaml), a trace (.json) or a sweep (.csv)</source>
        <translation>场景（.yaml）、跟踪（.json）或扫描（.csv）</translation>
    </message>
    <message>
        <source>Render a view to OUT.png without a window.</source>
        <translation>不打开窗口，将视图渲染为 OUT.png。</translation>
    </message>
    <message>
        <source>The view to render: timeline, ring or scaling.</source>
        <translation>要渲染的视图：timeline、ring 或 scaling。</translation>
    </message>
    <message>
        <source>Ring step to show (timeline: the cursor at it).</source>
        <translation>要显示的环步骤（时间线：光标位于该步）。</translation>
    </message>
    <message>
        <source>Timeline screenshot: link and collective lanes too, not only GPUs.</source>
        <translation>时间线截图：除 GPU 外也包括链路和集合通信泳道。</translation>
    </message>
    <message>
        <source>Language, e.g. zh_CN (default: the system&apos;s).</source>
        <translation>语言，例如 zh_CN（默认：系统语言）。</translation>
    </message>
    <message>
        <source>Screenshot size, e.g. 1400x420 (default: fitted to the view).</source>
        <translation>截图尺寸，例如 1400x420（默认：适应视图）。</translation>
    </message>
    <message>
        <source>--time: expected FROM:TO with units and FROM &lt; TO, like 30ms:33ms, got &apos;%1&apos;</source>
        <translation>--time：应为带单位的 起点:终点 且起点 &lt; 终点，例如 30ms:33ms，实际为“%1”</translation>
    </message>
    <message>
        <source>Timeline screenshot: only this time window.</source>
        <translation>时间线截图：仅显示此时间窗口。</translation>
    </message>
</context>
</TS>
